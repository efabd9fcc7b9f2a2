; args: fmt
(program p
  (input X (f64 3 4))
  (output (sum X 2)))
