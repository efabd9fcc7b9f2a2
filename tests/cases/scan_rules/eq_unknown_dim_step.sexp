; A map whose step has a size the types leave unknown (a slice with step 2
; of a symbolic axis): o_t = 2 y_t[0::2]. The rewrites must still apply (or
; leave the loop alone quickly).
; known_bug: every Scan rewrite of this loop is refused (an unknown size never matches, so kinds_compatible fails), yet each refused rebuild stays in the e-graph as a new loop that scan-merge and the others work on again: tens of thousands of refusals and the time limit
; dims: T=4 N=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_unknown_dim_step
  (input Y (f64 T N))
  (let O (scan (sequences Y) (fn (y) (mul (slice y 0 none 2) 2.0))))
  (output O))
