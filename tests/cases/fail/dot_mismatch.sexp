; args: fmt
(program p
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (dot A B)))
