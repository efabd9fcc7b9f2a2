; scan-merge must not merge loops over the same x whose step counts differ
; by a tap offset: T steps and, with taps -1 0, T-1 steps.
; dims: T=6
; scans_after: 2
; not_fires: scan-merge
(program neg_merge_steps_offset
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences (x (taps -1 0))) (outputs_info (sitsot 0.0))
    (fn (p q b) (sin (add b (mul p q))))))
  (output A B))
