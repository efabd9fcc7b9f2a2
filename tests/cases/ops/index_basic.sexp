(program index_basic
  (input X (f64 3 4))
  (output (index X 0) (index X 2) (index X -1) (index X -3)))
