; Not linear: the factor reads the state (s_t = s_{t-1} * s_{t-1} + u_t),
; and an integer state (no float recurrence): no linrec; the two loops
; merge into one.
; dims: T=5
; scans_after: 1
; parts_after: sitsots=2
(program neg_to_linrec_state_factor
  (input u (f64 T))
  (input k (i64 T))
  (let S (scan (sequences u) (outputs_info (sitsot (fill (f64) 0.1)))
    (fn (ut s) (add (mul (mul 0.5 s) s) ut))))
  (let K (scan (sequences k) (outputs_info (sitsot 1))
    (fn (kt s) (add (mul 3 s) kt))))
  (output S K))
