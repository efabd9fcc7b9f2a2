; A map with sequence taps -1 0 and n_steps 3 over 8 rows: the slices are
; X[0:3] and X[1:4].
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_taps_n_steps
  (input X (f64 8 2))
  (let O (scan (sequences (X (taps -1 0))) (n_steps 3)
    (fn (a b) (sub b (mul 0.5 a)))))
  (output O))
