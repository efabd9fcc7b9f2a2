; taps (-2 0) over 4 rows allow 2 steps; n_steps is 3.
; args: run --no-opt --gen
(program p
  (input X (f64 4 2))
  (let Y (scan
    (sequences (X (taps -2 0)))
    (n_steps 3)
    (fn (a b) (add a b))))
  (output Y))
