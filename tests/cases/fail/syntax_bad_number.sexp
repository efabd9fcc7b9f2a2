; args: fmt
(program p
  (input X (f64 3))
  (output (mul X 2.0.0)))
