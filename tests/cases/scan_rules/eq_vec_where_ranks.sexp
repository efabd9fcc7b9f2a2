; where with a per-step scalar condition and vector branches, all from
; sequences: moved out, the condition's stack needs a length-1 axis.
; dims: T=3 N=3
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_where_ranks
  (input c (f64 T))
  (input X (f64 T N))
  (input Y (f64 T N))
  (let O (scan (sequences c X Y)
    (fn (ct x y) (where (gt ct 0.0) x y))))
  (output O))
