; solve of a 3x4 matrix: a type error at the op.
; args: fmt
(program p
  (input A (f64 3 4))
  (input b (f64 3))
  (output (solve A b)))
