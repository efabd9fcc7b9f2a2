; A running sum with n_steps 3 over 6 rows, read at its end and at every
; step: the reduction and the cumsum cover X[0:3] only.
; scans_after: 0
; fires: scan-to-reduction scan-to-cumulative
(program eq_fold_n_steps_short
  (input X (f64 6 2))
  (input s0 (f64 2))
  (let S (scan (sequences X) (outputs_info (sitsot s0)) (n_steps 3)
    (fn (x s) (add s (mul x x)))))
  (output S (index S -1)))
