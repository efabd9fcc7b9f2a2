; scan-fuse must not fuse a forward consumer of a go_backwards loop's
; output.
; dims: T=5
; scans_after: 2
; not_fires: scan-fuse scan-merge
(program neg_fuse_producer_backwards
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0)) (go_backwards)
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences A) (outputs_info (sitsot 1.0))
    (fn (s b) (cos (mul b s)))))
  (output B))
