; Neither scan-merge nor scan-fuse may join B with A when B reads A's
; output at taps -1 and 0 (fuse needs tap 0 alone; merging would make a
; cycle). B has T-1 steps.
; dims: T=6
; scans_after: 2
; not_fires: scan-merge scan-fuse
(program neg_merge_reads_other_taps
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences (A (taps -1 0))) (outputs_info (sitsot 0.0))
    (fn (p q b) (sin (add b (mul p q))))))
  (output B))
