; args: fmt
(program p
  (shared s (f64 3))
  (input X (f64 3))
  (output s))
