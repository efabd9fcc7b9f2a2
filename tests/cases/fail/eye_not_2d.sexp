; eye makes a matrix.
; args: fmt
(program p
  (output (eye (f64 3))))
