; Sequence taps -1 and +1: s_t = tanh(s_{t-1} + x_{t+1} - x_{t-1}) over
; T-2 steps; the difference can move out as X[2:] - X[:-2] (it costs the
; same, so the loop is kept as written), and the loop must not be merged
; with the loop over x with T steps.
; dims: T=7
; scans_after: 2
; fires: scan-push-out-seq
; not_fires: scan-merge scan-fuse
(program neg_taps_pm1
  (input x (f64 T))
  (let S (scan (sequences (x (taps -1 1))) (outputs_info (sitsot 0.0))
    (fn (prev next s) (tanh (add s (sub next prev))))))
  (let R (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (xt r) (sin (add r xt)))))
  (output S R))
