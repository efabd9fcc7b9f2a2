; Adapts test_merge's while-conditions test (E7 a): loops over [x, z] and
; [y, -z] read their second sequence the same way in the body; merged,
; z and -z must stay two inputs (values checked).
; dims: T=5
; scans_after: 1
; fires: scan-merge
(program pt_e7_inner_inputs_not_conflated
  (input x (f64 T))
  (input y (f64 T))
  (input z (f64 T))
  (let A (scan (sequences x z) (outputs_info (sitsot 0.0))
    (fn (s1 s2 a) (tanh (add a (mul s1 s2))))))
  (let B (scan (sequences y (neg z)) (outputs_info (sitsot 0.0))
    (fn (s1 s2 a) (tanh (add a (mul s1 s2))))))
  (output A B))
