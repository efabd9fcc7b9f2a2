; Sequence taps must keep their slices when a map moves out: taps -1 0 1
; read only at 0 give 2 X[1:-1] (T-2 rows, shifted by one), and taps -1 1
; give X[2:] - X[:-2]; neither tap set may be narrowed to the taps read.
; dims: T=7
; scans_after: 0
; fires: scan-push-out-seq
(program neg_taps_unused_tap
  (input x (f64 T))
  (let O (scan (sequences (x (taps -1 0 1)))
    (fn (a b c) (mul 2.0 b))))
  (let D (scan (sequences (x (taps -1 1)))
    (fn (prev next) (sub next prev))))
  (output O D))
