(program reduce_mean
  (input X (f64 2 3 4))
  (output (mean X) (mean X 1) (mean X -1)))
