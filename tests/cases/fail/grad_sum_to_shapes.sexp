; args: fmt
(program p
  (input G (f64 3 4))
  (input X (f64 2 4))
  (output (sum_to G X)))
