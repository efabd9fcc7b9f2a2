; A mit-sot with taps -2 -1 whose update reads only tap -1,
; s_t = s_{t-1} + x_t: a running sum in fact; the rules handle sit-sots
; only, so it stays a loop, with the right values.
; dims: T=6 N=2
; scans_after: 1
(program neg_mitsot_one_tap_read
  (input X (f64 T N))
  (input I (f64 2 N))
  (let S (scan (sequences X) (outputs_info (mitsot I (taps -2 -1)))
    (fn (x s2 s1) (add s1 x))))
  (output S (index S -1)))
