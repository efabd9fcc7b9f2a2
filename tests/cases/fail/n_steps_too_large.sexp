; n_steps 5 but the sequence has only 3 rows (known when T is bound).
; args: run --no-opt --gen --dim T=3
(program p
  (input X (f64 T 2))
  (let Y (scan
    (sequences X)
    (n_steps 5)
    (fn (x) (mul x 2.0))))
  (output Y))
