; args: fmt
(program p
  (input X (f64 3 4))
  (input g (f64 4))
  (output (inc_index X g 3)))
