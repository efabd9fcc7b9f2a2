; scan-fuse must not fuse a consumer that also reads the producer's output
; as a whole (here its last row, as a non-sequence).
; dims: T=5
; scans_after: 2
; not_fires: scan-fuse scan-merge
(program neg_fuse_reads_whole
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences A) (outputs_info (sitsot 1.0)) (non_sequences (index A -1))
    (fn (s b k) (cos (add (mul b s) k)))))
  (output B))
