; args: fmt
; a missing close parenthesis at the end of the file.
(program p
  (input X (f64 3))
  (output (neg X))
