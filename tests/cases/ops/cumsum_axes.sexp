(program cumsum_axes
  (input X (f64 2 3 4))
  (output (cumsum X) (cumsum X 1) (cumsum X -1) (cumsum X -3)))
