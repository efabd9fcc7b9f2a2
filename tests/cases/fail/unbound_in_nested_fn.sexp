; args: fmt
(program p
  (input X (f64 4 2 3))
  (let Y (scan
    (sequences X)
    (fn (x)
      (let inner (scan
        (sequences x)
        (fn (r) (mul r undefined_w))))
      (sum inner 0))))
  (output Y))
