(program expand_dims
  (input X (f64 3 4))
  (input s (f64))
  (output (expand_dims X 0) (expand_dims X 1) (expand_dims X 2) (expand_dims X -1) (expand_dims X -2) (expand_dims X -3) (expand_dims s 0)))
