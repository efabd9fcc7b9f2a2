; A map over an empty sequence, moved out: the result keeps shape (0, 3).
; dims: T=0
; cost_dims: T=1000
; scans_after: 0
; fires: scan-push-out-seq
(program eq_empty_map
  (input X (f64 T 3))
  (let O (scan (sequences X) (fn (x) (exp (mul x 2.0)))))
  (output O))
