; args: fmt
(program p
  (input X (f64 3 2))
  (output (squeeze X 1)))
