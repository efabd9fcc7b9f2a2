; args: fmt
(program p
  (input A (f64 3))
  (input B (f64 4))
  (output (stack A B)))
