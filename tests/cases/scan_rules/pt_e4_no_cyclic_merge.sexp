; Ports test_merge's no-cyclic-merge test (E4): A1 (15 steps), B1 (14),
; A2 over [x0; B1] (15) and B2 over A1[:-1] (14). Merging A1 with A2 and
; B1 with B2 would make a cycle; at most one pair merges (3 loops).
; A2 and B2 apply tanh to their state: the upstream test's linear
; recurrences would become linrec ops (scan-to-linrec), no loops to merge.
; scans_after: 3
; fires: scan-merge
(program pt_e4_no_cyclic_merge
  (input x (f64 3))
  (let A1 (scan (outputs_info (sitsot x)) (n_steps 15)
    (fn (a) (add (mul 0.9 a) 1.0))))
  (let B1 (scan (outputs_info (sitsot x)) (n_steps 14)
    (fn (b) (add (mul 0.8 b) 0.5))))
  (let A2 (scan
    (sequences (concat 0 (expand_dims x 0) B1))
    (outputs_info (sitsot (zeros (f64 3))))
    (fn (s p) (add (tanh (mul 0.5 p)) s))))
  (let B2 (scan
    (sequences (slice A1 0 -1))
    (outputs_info (sitsot (zeros (f64 3))))
    (fn (s p) (add (tanh (mul 0.5 p)) s))))
  (output (add (index A2 -1) (index B2 -1))))
