(program reduce_max
  (input X (f64 2 3 4))
  (output (max X) (max X 0) (max X -1) (max X -2)))
