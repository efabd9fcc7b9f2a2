; args: fmt
(program p
  (input X (f64 3))
  (input Y (f64 4))
  (output (add X Y)))
