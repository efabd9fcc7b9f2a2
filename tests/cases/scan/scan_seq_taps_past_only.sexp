; taps (-3 -1): as in PyTensor the cut pretends tap 0 is used, so tap -3
; reads X[t] and tap -1 reads X[t+2]; T-3 steps.
; dims: T=8 N=2
(program scan_seq_taps_past_only
  (input X (f64 T N))
  (let Y (scan
    (sequences (X (taps -3 -1)))
    (fn (x_m3 x_m1) (sub x_m1 (mul 2.0 x_m3)))))
  (output Y))
