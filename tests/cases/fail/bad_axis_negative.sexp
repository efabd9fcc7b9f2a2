; args: fmt
(program p
  (input X (f64 3 4))
  (output (mean X -3)))
