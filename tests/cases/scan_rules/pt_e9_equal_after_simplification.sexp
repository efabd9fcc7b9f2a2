; Ports test_basic's equality-after-inner-optimisation test (E9): bodies
; tanh(s*1 + x_t) and tanh(s + x_t) are the same once the algebra rules
; simplify s*1: one loop.
; dims: T=5
; scans_after: 1
(program pt_e9_equal_after_simplification
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (t s) (tanh (add (mul s 1.0) t)))))
  (let B (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (t s) (tanh (add s t)))))
  (output A B))
