; n_steps (sub T 3) over T rows read at taps -1 0 1: the sequence allows
; T-2 steps, one more than are run, so each tap's rows are cut with literal
; bounds (X[0:-3], X[1:-2], X[2:-1]) and the map is a term of them.
; dims: T=8
; scans_after: 0
; fires: scan-push-out-seq
(program eq_push_out_seq_n_steps_offset_taps
  (input X (f64 T 2))
  (let O (scan (sequences (X (taps -1 0 1))) (n_steps (sub T 3))
    (fn (a b c) (add (mul a c) (exp b)))))
  (output O))
