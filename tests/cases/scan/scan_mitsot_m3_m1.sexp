; taps (-3 -1): init holds 3 rows; tap -2 is not read.
; dims: T=7 N=2
(program scan_mitsot_m3_m1
  (input I (f64 3 N))
  (let Xs (scan
    (outputs_info (mitsot I (taps -3 -1)))
    (n_steps T)
    (fn (x_m3 x_m1) (add x_m1 (mul 0.5 x_m3)))))
  (output Xs))
