; taps (-1 -3): parameters in the order written.
; dims: T=6 N=2
(program scan_mitsot_taps_unordered
  (input I (f64 3 N))
  (let Xs (scan
    (outputs_info (mitsot I (taps -1 -3)))
    (n_steps T)
    (fn (x_m1 x_m3) (sub x_m1 (mul 0.3 x_m3)))))
  (output Xs))
