; scan-fuse must not fuse a go_backwards consumer of a forward loop's
; output (the consumer's step t reads the producer's step T-1-t).
; dims: T=5
; scans_after: 2
; not_fires: scan-fuse scan-merge
(program neg_fuse_consumer_backwards
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences A) (outputs_info (sitsot 1.0)) (go_backwards)
    (fn (s b) (cos (mul b s)))))
  (output B))
