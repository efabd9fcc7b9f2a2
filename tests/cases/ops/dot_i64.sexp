(program dot_i64
  (input K (i64 3 4))
  (input J (i64 4 2))
  (input X (f64 4 2))
  (output (dot K J) (dot K X)))
