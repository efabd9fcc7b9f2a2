; args: fmt
(program p
  (input C (bool 3))
  (input X (f64 3))
  (output (where C X)))
