(program index_1d
  (input v (f64 6))
  (output (index v 0) (index v -2) (index v 5)))
