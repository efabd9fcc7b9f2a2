; Ports test_merge's basic test, case (b), n_steps 2 and 3 over the same
; sequence; not merged (2 loops).
; dims: T=4
; scans_after: 2
; not_fires: scan-merge scan-fuse
(program pt_e1b_different_n_steps
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0)) (n_steps 2)
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (let B (scan (sequences x) (outputs_info (sitsot 0.0)) (n_steps 3)
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (output A B))
