; A mit-sot s_t = s_{t-1} + s_{t-2} + x_t (taps -2 -1) read at its end is
; no running fold: scan-to-reduction must not fire.
; dims: T=6 N=2
; scans_after: 1
; not_fires: scan-to-reduction scan-to-cumulative
(program neg_mitsot_fold
  (input X (f64 T N))
  (input I (f64 2 N))
  (let S (scan (sequences X) (outputs_info (mitsot I (taps -2 -1)))
    (fn (x s2 s1) (add (add s1 s2) x))))
  (output (index S -1)))
