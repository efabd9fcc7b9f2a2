; args: fmt
(program p
  (input A (f64 4))
  (input U (f64 5 3))
  (output (linrec A U 0.0)))
