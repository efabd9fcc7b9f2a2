(program unary_abs
  (input X (f64 3 4))
  (output (abs X)))
