(program unary_log1p
  (input X (f64 3 4))
  (output (log1p (abs X))))
