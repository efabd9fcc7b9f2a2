; s_t = x_t - s_{t-1} alternates signs: not a running fold, whatever form
; the algebra rules give it; no reduction, no cumsum.
; dims: T=6 N=3
; scans_after: 1
; not_fires: scan-to-reduction scan-to-cumulative
(program neg_reduction_sub_reversed
  (input X (f64 T N))
  (input s0 (f64 N))
  (let S (scan (sequences X) (outputs_info (sitsot s0))
    (fn (x s) (sub x s))))
  (output S (index S -1)))
