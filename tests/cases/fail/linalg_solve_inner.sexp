; solve with a right-hand side of the wrong size: a type error at the op.
; args: fmt
(program p
  (input A (f64 3 3))
  (input B (f64 4 2))
  (output (solve A B)))
