(program cumsum_1d
  (input v (f64 7))
  (output (cumsum v) (cumsum v -1)))
