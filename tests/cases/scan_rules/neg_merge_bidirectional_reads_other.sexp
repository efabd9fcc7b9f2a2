; A go_backwards loop over the forward loop's states: the backward loop
; reads the forward one's output, so merging them would make a cycle; two
; loops stay, and the values are the written ones.
; dims: T=5
; scans_after: 2
; not_fires: scan-merge scan-fuse
(program neg_merge_bidirectional_reads_other
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences A) (outputs_info (sitsot 0.0)) (go_backwards)
    (fn (s b) (sin (add b s)))))
  (output B))
