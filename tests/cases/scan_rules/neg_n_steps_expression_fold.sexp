; A running sum with n_steps (sub T 1) over T rows, read at its end and at
; every step: it sums T-1 rows; a reduction or cumsum must keep the cut.
; dims: T=5
; known_bug: the e-graph analysis takes the step count of a scan whose n_steps is an expression (not a literal or a size) from its sequences (T instead of T-1), so the rewrites drop the cut
; scans_after: 1
(program neg_n_steps_expression_fold
  (input X (f64 T 3))
  (input s0 (f64 3))
  (let S (scan (sequences X) (outputs_info (sitsot s0)) (n_steps (sub T 1))
    (fn (x s) (add s x))))
  (output S (index S -1)))
