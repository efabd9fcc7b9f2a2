; taps (1 2): as in PyTensor the cut pretends tap 0 is used, so tap 1 reads
; X[t+1] and tap 2 reads X[t+2]; T-2 steps.
; dims: T=7 N=2
(program scan_seq_taps_future_only
  (input X (f64 T N))
  (let Y (scan
    (sequences (X (taps 1 2)))
    (fn (x_p1 x_p2) (add x_p1 (mul 3.0 x_p2)))))
  (output Y))
