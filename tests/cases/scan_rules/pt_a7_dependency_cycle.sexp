; Ports test_io's dependency-cycle test (A7): a_t = 0.5 b_{t-1},
; b_t = 0.5 a_{t-1}, c_t = a_{t-1} + 1, only cs read: c needs a, a needs b,
; so both states stay (only c could be split off, and it is the one read).
; scans_after: 1
; parts_after: sitsots=2 nitsots=1
(program pt_a7_dependency_cycle
  (input a0 (f64 3))
  (input b0 (f64 3))
  (let (A B C) (scan
    (outputs_info (sitsot a0) (sitsot b0) (nitsot))
    (n_steps 5)
    (fn (a b) (outputs (mul 0.5 b) (mul 0.5 a) (add a 1.0)))))
  (output C))
