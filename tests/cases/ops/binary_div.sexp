(program binary_div
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (div A (add (abs B) 0.5))))
