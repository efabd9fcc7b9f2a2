; Ports test_merge's basic test, case (a): the same recurrence over two
; sequences of different (symbolic) lengths; the step counts differ, so the
; loops are not merged (2 loops).
; dims: T=4 U=5
; scans_after: 2
; not_fires: scan-merge scan-fuse
(program pt_e1a_different_lengths
  (input x (f64 T))
  (input y (f64 U))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (let B (scan (sequences y) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (output A B))
