; solve_triangular's LOWER is a literal true or false.
; args: fmt
(program p
  (input A (f64 3 3))
  (input b (f64 3))
  (output (solve_triangular A b 1)))
