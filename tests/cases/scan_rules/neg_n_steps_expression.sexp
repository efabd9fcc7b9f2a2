; n_steps given as an expression, (sub T 1), over a sequence of T rows: the
; loop has T-1 steps. A rewrite must not read the step count off the
; sequence (T) and drop the cut.
; dims: T=5
; known_bug: the e-graph analysis takes the step count of a scan whose n_steps is an expression (not a literal or a size) from its sequences (T instead of T-1), so the rewrites drop the cut
; scans_after: 1
(program neg_n_steps_expression
  (input X (f64 T 3))
  (let Y (scan (sequences X) (n_steps (sub T 1))
    (fn (x) (mul x 2.0))))
  (output Y))
