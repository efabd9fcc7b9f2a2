(program transpose_permuted
  (input X (f64 2 3 4))
  (output (transpose X 1 2 0) (transpose X 0 2 1) (transpose X 2 1 0) (transpose X 0 1 2)))
