; A numeric condition that is NaN: NaN counts as true (non-zero), 0.0 as
; false. y_t = x_t^2 over X, until (where (lt x_t -0.3) nan 0.0). With the
; data rule x_10 = -0.265 and x_11 = -0.400: 12 of the 20 steps run.
; dims: T=20
(program while_nan_cond
  (input X (f64 T))
  (let Y (scan
    (sequences X)
    (fn (x) (outputs (mul x x) (until (where (lt x -0.3) nan 0.0))))))
  (output Y))
