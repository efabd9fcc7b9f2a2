; s_t = s_{t-1} + x_t r_{t-1} with r_t = 0.9 r_{t-1}: f reads another
; state, so s is no running fold of the sequence alone.
; dims: T=6 N=3
; scans_after: 1
; not_fires: scan-to-reduction scan-to-cumulative
(program neg_reduction_reads_other_state
  (input X (f64 T N))
  (input s0 (f64 N))
  (input r0 (f64 N))
  (let (S R) (scan (sequences X) (outputs_info (sitsot s0) (sitsot r0))
    (fn (x s r) (outputs (add s (mul x r)) (mul r 0.9)))))
  (output (index S -1)))
