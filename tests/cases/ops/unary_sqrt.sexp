(program unary_sqrt
  (input X (f64 3 4))
  (output (sqrt (abs X))))
