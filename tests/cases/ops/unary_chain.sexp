(program unary_chain
  (input X (f64 3 4))
  (output (tanh (sin (exp X)))))
