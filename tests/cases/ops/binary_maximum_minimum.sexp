(program binary_maximum_minimum
  (input A (f64 3 4))
  (input B (f64 4))
  (output (maximum A B) (minimum A B) (maximum A 0.0)))
