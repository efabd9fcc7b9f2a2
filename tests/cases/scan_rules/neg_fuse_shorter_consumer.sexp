; scan-fuse must not fuse a consumer with fewer steps (n_steps 3 over the
; producer's T = 6 rows).
; dims: T=6
; scans_after: 2
; not_fires: scan-fuse scan-merge
(program neg_fuse_shorter_consumer
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences A) (outputs_info (sitsot 1.0)) (n_steps 3)
    (fn (s b) (cos (mul b s)))))
  (output A B))
