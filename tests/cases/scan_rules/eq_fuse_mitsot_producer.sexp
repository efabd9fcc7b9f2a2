; scan-fuse from a mit-sot producer with n_steps and no sequences: the
; consumer reads its steps (not its init rows).
; scans_after: 1
; fires: scan-fuse
(program eq_fuse_mitsot_producer
  (input I (f64 2 3))
  (let P (scan (outputs_info (mitsot I (taps -2 -1))) (n_steps 6)
    (fn (p2 p1) (tanh (add p1 (mul 0.5 p2))))))
  (let C (scan (sequences P) (outputs_info (sitsot (zeros (f64 3))))
    (fn (p c) (sin (add (mul c 0.9) p)))))
  (output C))
