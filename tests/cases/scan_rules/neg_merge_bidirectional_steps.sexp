; A forward loop over all T rows and a go_backwards one over n_steps 3 of
; the same X: different step counts, so they are not merged.
; dims: T=5
; scans_after: 2
; not_fires: scan-merge
(program neg_merge_bidirectional_steps
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences x) (outputs_info (sitsot 0.0)) (n_steps 3)
    (go_backwards)
    (fn (s b) (sin (add b s)))))
  (output A B))
