; args: fmt
(program p
  (input X (f64 5 3))
  (input W (f64 4 4))
  (let Y (scan
    (sequences X)
    (non_sequences W)
    (fn (x w) (dot w x))))
  (output Y))
