; Adapts test_merge's while-scans test (E6, add and sub over the same x) to
; fixed loops: two different recurrences over x merge into one loop that
; takes x once.
; dims: T=5
; scans_after: 1
; parts_after: seqs=1 sitsots=2
; fires: scan-merge
(program pt_e6_shared_sequence
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add a s)))))
  (let B (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s b) (tanh (sub b s)))))
  (output A B))
