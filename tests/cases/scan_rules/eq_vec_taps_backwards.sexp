; A map with sequence taps 0 and 2 run go_backwards: each tap's slice is
; reversed (step t reads X[T-3-t] and X[T-1-t]).
; dims: T=7 N=2
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_taps_backwards
  (input X (f64 T N))
  (let O (scan (sequences (X (taps 0 2))) (go_backwards)
    (fn (a c) (sub c (mul 2.0 a)))))
  (output O))
