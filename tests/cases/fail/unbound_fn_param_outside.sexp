; a fn parameter used outside its scan.
; args: fmt
(program p
  (input X (f64 4 3))
  (let Y (scan
    (sequences X)
    (fn (x) (mul x 2.0))))
  (output (add Y x)))
