; scale: X=10.0
(program unary_cos
  (input X (f64 3 4))
  (output (cos X)))
