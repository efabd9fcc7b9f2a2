; args: fmt
(program p
  (input u (f64))
  (output (linrec 0.5 u 0.0)))
