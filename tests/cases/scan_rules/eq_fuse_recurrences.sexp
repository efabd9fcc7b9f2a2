; scan-fuse: a recurrence over another recurrence's output (tap 0, same
; steps, forward) becomes one loop computing both.
; dims: T=5
; scans_after: 1
; fires: scan-fuse
(program eq_fuse_recurrences
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (let B (scan (sequences A) (outputs_info (sitsot 1.0))
    (fn (s b) (cos (mul b s)))))
  (output B))
