; args: fmt
(program p
  (input X (f64 3 2))
  (output (flip X 2)))
