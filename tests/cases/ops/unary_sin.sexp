; scale: X=10.0
(program unary_sin
  (input X (f64 3 4))
  (output (sin X)))
