(program reduce_min
  (input X (f64 2 3 4))
  (output (min X) (min X 1) (min X -3)))
