; args: fmt
(program p
  (input X (f64 3 4))
  (output (transpose X 0 0)))
