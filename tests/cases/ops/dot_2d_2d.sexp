(program dot_2d_2d
  (input A (f64 3 4))
  (input B (f64 4 2))
  (output (dot A B)))
