; dims: T=4
(program grad_sum_to
  (input G (f64 2 T 3))
  (input x (f64 T 3))
  (input r (f64 1 3))
  (input c (f64 T 1))
  (input s (f64))
  (input K (i64 T 3))
  (input B (bool T 3))
  (input F (f32 2 T 3))
  (output (sum_to G x) (sum_to G r) (sum_to G c) (sum_to G s) (sum_to G G)
          (sum_to K r) (sum_to B r) (sum_to F c) (sum_to x (fill (f64 1 1) 0.0))))
