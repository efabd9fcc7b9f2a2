; scan-merge must not merge a loop with one that reads it: B's
; non-sequence is A's last value (same step count, both forward).
; dims: T=5
; scans_after: 2
; not_fires: scan-merge scan-fuse
(program neg_merge_reads_other
  (input x (f64 T))
  (input y (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let a_last (index A -1))
  (let B (scan (sequences y) (outputs_info (sitsot 0.0)) (non_sequences a_last)
    (fn (s b k) (tanh (add b (mul s k))))))
  (output B))
