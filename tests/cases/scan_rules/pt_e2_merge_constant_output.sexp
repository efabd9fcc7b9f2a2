; Ports test_merge's constant-inner-output test (E2): bodies returning
; (a recurrence, the constant 3) over x and y with n_steps 4 merge into one
; loop; the constant outputs are 4 rows of 3.
; scans_after: 1
; fires: scan-merge
(program pt_e2_merge_constant_output
  (input x (f64 4))
  (input y (f64 4))
  (let (A C1) (scan (sequences x) (outputs_info (sitsot 0.0) (nitsot)) (n_steps 4)
    (fn (s a) (outputs (tanh (add a s)) (fill (f64) 3.0)))))
  (let (B C2) (scan (sequences y) (outputs_info (sitsot 0.0) (nitsot)) (n_steps 4)
    (fn (s b) (outputs (sin (add b s)) (fill (f64) 3.0)))))
  (output A C1 B C2))
