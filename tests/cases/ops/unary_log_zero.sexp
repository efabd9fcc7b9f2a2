; log(|X|): X[0, 0] is exactly 0 (sin 0), so the first element is -inf.
(program unary_log_zero
  (input X (f64 2 3))
  (output (log (abs X))))
