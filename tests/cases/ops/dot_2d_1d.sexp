(program dot_2d_1d
  (input A (f64 3 4))
  (input v (f64 4))
  (output (dot A v)))
