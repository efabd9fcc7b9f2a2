; X[0, 0] is exactly 0: sign(0) = 0.
(program unary_sign
  (input X (f64 3 4))
  (output (sign X)))
