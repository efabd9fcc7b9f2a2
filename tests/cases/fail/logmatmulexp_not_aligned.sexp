; args: optimize
(program p
  (input a (f64 3))
  (input B (f64 4 2))
  (output (logmatmulexp a B)))
