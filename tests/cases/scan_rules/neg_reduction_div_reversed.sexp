; s_t = x_t / s_{t-1} is not a running fold (the state is inverted each
; step); no reduction, no cumprod.
; dims: T=6 N=3
; scans_after: 1
; not_fires: scan-to-reduction scan-to-cumulative
(program neg_reduction_div_reversed
  (input X (f64 T N))
  (input s0 (f64 N))
  (let S (scan (sequences X) (outputs_info (sitsot s0))
    (fn (x s) (div x s))))
  (output S (index S -1)))
