; A running sum with n_steps (sub T 1) over T rows, read at its end and at
; every step: it sums T-1 rows; a reduction or cumsum must keep the cut
; (it is a cumsum of X[0:-1]).
; dims: T=5
; scans_after: 0
(program neg_n_steps_expression_fold
  (input X (f64 T 3))
  (input s0 (f64 3))
  (let S (scan (sequences X) (outputs_info (sitsot s0)) (n_steps (sub T 1))
    (fn (x s) (add s x))))
  (output S (index S -1)))
