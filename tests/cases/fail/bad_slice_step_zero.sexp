; args: fmt
(program p
  (input X (f64 5))
  (output (slice X 0 none 0)))
