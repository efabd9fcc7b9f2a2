; go_backwards with n_steps 3 over 6 rows: the loop reads X[5], X[4], X[3]
; (the last 3 rows, from the end), so the map is 2 X[3:] reversed and the
; loop disappears (scan-push-out-seq cuts the sequence first; it was a
; neg_ case before the cut was written for loops going backwards).
; scans_after: 0
; fires: scan-push-out-seq
(program eq_push_out_seq_backwards_long
  (input X (f64 6 2))
  (let O (scan (sequences X) (n_steps 3) (go_backwards)
    (fn (x) (mul x 2.0))))
  (output O))
