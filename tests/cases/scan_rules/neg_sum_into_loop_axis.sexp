; scan-sum-into-loop takes only a full sum: sum(H ⊙ Y, 0), a sum over the
; steps with a row left, is not a per-step scalar, and the rule does not
; fire (under the same budget as eq_sum_into_loop_loss). Outputs as
; written.
; dims: T=20 N=4
; scale: W=0.25
; memory_budget: 400
; not_fires: scan-sum-into-loop
; scans_after: 1
(program loss_axis
  (input W (f64 N N))
  (input X (f64 T N))
  (input h0 (f64 N))
  (input Y (f64 T N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W)
    (fn (x_t h_prev w)
      (tanh (add (dot w h_prev) x_t)))))
  (output (sum (mul H Y) 0)))
