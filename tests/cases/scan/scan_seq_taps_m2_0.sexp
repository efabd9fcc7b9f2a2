; sequence taps (-2 0): step t reads X[t] and X[t+2]; T-2 steps.
; dims: T=7 N=3
(program scan_seq_taps_m2_0
  (input X (f64 T N))
  (let Y (scan
    (sequences (X (taps -2 0)))
    (fn (x_m2 x_0) (sub x_0 (mul 0.5 x_m2)))))
  (output Y))
