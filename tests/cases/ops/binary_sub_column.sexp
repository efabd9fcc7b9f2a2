(program binary_sub_column
  (input A (f64 3 4))
  (input c (f64 3 1))
  (output (sub A c)))
