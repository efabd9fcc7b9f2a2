; scale: X=6.0
(program unary_tanh
  (input X (f64 3 4))
  (output (tanh X)))
