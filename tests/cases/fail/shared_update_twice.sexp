; args: fmt
(program p
  (input X (f64 3))
  (shared s (f64 3))
  (update s (neg X))
  (update s X)
  (output s))
