; Ports test_trace's constant step reduction (F2): x_t = x_{t-1} + 1 over
; 10 steps read at xs[-3] (8); eqscan has no step trimming, the loop stays.
; scans_after: 1
(program pt_f2_constant_step_read
  (let X (scan (outputs_info (sitsot 0.0)) (n_steps 10)
    (fn (x) (add x 1.0))))
  (output (index X -3)))
