; x / 0: +-inf, and 0 / 0 = nan at X[0].
(program binary_div_zero
  (input X (f64 6))
  (output (div X (sub X X))))
