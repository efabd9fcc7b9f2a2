; args: fmt
(program p
  (input X (i64 3))
  (input g (f64))
  (output (inc_index X g 0)))
