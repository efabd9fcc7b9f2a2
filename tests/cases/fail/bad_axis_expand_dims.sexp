; args: fmt
(program p
  (input X (f64 3 4))
  (output (expand_dims X 3)))
