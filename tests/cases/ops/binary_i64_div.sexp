; true division of integers gives f64 (J has zeros: inf and nan).
(program binary_i64_div
  (input K (i64 3 4))
  (input J (i64 3 4))
  (output (div K J)))
