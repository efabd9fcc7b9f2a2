; args: fmt
(program p
  (input G (f64 4))
  (input X (f64 1 4))
  (output (sum_to G X)))
