; A while loop written as a fixed loop: s_t = s_{t-1} + x_t until s passes
; 1, via a "done" flag state; s's update reads the flag, so it is no running
; fold, and the flag (a running maximum of a state test) stays too.
; dims: T=8
; scale: x=4.0
; scans_after: 1
; not_fires: scan-to-reduction scan-to-cumulative
(program neg_while_style_sum
  (input x (f64 T))
  (let (DONE S) (scan
    (sequences x)
    (outputs_info (sitsot 0.0) (sitsot 0.0))
    (fn (xt done s)
      (outputs
        (maximum done (cast f64 (gt s 1.0)))
        (add s (where (gt done 0.5) 0.0 xt))))))
  (output (index S -1) DONE))
