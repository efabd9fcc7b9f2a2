; a negative base to a fractional power is nan.
(program binary_pow_nan
  (input X (f64 8))
  (output (pow X 0.5)))
