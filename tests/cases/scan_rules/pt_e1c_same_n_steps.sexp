; Ports test_merge's basic test, case (c): n_steps 4 and 4 over two
; different sequences: one loop.
; scans_after: 1
; fires: scan-merge
(program pt_e1c_same_n_steps
  (input x (f64 6))
  (input y (f64 5))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0)) (n_steps 4)
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (let B (scan (sequences y) (outputs_info (sitsot 0.0)) (n_steps 4)
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (output A B))
