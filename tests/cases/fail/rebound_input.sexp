; args: fmt
(program p
  (input X (f64 3))
  (input X (f64 4))
  (output X))
