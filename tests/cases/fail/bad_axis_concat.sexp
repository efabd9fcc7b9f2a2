; args: fmt
(program p
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (concat 2 A B)))
