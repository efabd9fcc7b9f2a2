; args: fmt
(program p
  (input X (f64 3))
  (output (frobnicate X)))
