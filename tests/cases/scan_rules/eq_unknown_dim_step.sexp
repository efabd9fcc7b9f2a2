; A map whose step has a size the types leave unknown (a slice with step 2
; of a symbolic axis): o_t = 2 y_t[0::2]. A rewrite may only union classes
; of equal, fully known types, so the loop is left alone — quickly, without
; rebuilding it over and over (it used to run into the time limit).
; dims: T=4 N=5
; scans_after: 1
; not_fires: scan-push-out-seq scan-tidy-inputs scan-merge
(program eq_unknown_dim_step
  (input Y (f64 T N))
  (let O (scan (sequences Y) (fn (y) (mul (slice y 0 none 2) 2.0))))
  (output O))
