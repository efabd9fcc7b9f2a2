; a two-tap recurrence (taps -2 -1), init holds the 2 values before step 0.
; dims: T=6 N=3
(program scan_mitsot_m2_m1
  (input I (f64 2 N))
  (let Xs (scan
    (outputs_info (mitsot I (taps -2 -1)))
    (n_steps T)
    (fn (x_m2 x_m1) (add (sub (mul 0.5 x_m1) (mul 0.25 x_m2)) 0.1))))
  (output Xs))
