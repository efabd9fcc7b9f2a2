; scan-merge must not merge a forward loop with a go_backwards one over the
; same sequence (same step count, different order).
; dims: T=5
; scans_after: 2
; not_fires: scan-merge scan-fuse
(program neg_merge_direction
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences x) (outputs_info (sitsot 0.0)) (go_backwards)
    (fn (s b) (sin (add b s)))))
  (output A B))
