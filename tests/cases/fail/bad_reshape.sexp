; args: fmt
(program p
  (input X (f64 3 4))
  (output (reshape X 5 -1)))
