; A forward loop and a go_backwards one over the same sequence (same step
; count) merge into one forward loop that reads x and x reversed; each
; output keeps its own loop's step order (this was a neg_ case before
; scan-merge learnt to merge loops of opposite directions).
; dims: T=5
; scans_after: 1
; fires: scan-merge
; not_fires: scan-fuse
(program eq_merge_direction
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences x) (outputs_info (sitsot 0.0)) (go_backwards)
    (fn (s b) (sin (add b s)))))
  (output A B))
