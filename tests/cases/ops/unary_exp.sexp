; scale: X=4.0
(program unary_exp
  (input X (f64 3 4))
  (output (exp X)))
