; n_steps given as an expression, (sub T 1), over a sequence of T rows: the
; loop has T-1 steps. A rewrite must not read the step count off the
; sequence (T) and drop the cut: the map is a term of X[0:-1].
; dims: T=5
; scans_after: 0
(program neg_n_steps_expression
  (input X (f64 T 3))
  (let Y (scan (sequences X) (n_steps (sub T 1))
    (fn (x) (mul x 2.0))))
  (output Y))
