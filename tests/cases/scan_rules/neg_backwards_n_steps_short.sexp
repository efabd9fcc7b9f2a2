; go_backwards with n_steps 3 over 6 rows: the loop reads X reversed, cut
; to 3 rows; scan-push-out-seq needs a symbolic-free slice and does not
; fire here; values must match either way.
; scans_after: 1
; not_fires: scan-push-out-seq
(program neg_backwards_n_steps_short
  (input X (f64 6 2))
  (let O (scan (sequences X) (n_steps 3) (go_backwards)
    (fn (x) (mul x 2.0))))
  (output O))
