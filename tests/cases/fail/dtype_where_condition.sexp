; args: fmt
(program p
  (input X (f64 3))
  (input A (f64 3))
  (input B (f64 3))
  (output (where X A B)))
