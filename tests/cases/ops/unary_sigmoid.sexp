; scale: X=20.0
(program unary_sigmoid
  (input X (f64 3 4))
  (output (sigmoid X)))
