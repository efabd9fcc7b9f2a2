; log of a positive argument.
(program unary_log
  (input X (f64 3 4))
  (output (log (add (abs X) 1.0))))
