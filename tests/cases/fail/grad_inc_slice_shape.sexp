; args: fmt
(program p
  (input X (f64 6 2))
  (input g (f64 2 2))
  (output (inc_slice X g 1 5 1)))
