(program dot_1d_2d
  (input v (f64 3))
  (input A (f64 3 4))
  (output (dot v A)))
