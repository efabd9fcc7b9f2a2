; dims: T=7
(program grad_inc_slice
  (input X (f64 6 2))
  (input g (f64 2))
  (input Y (f64 T 2))
  (input K (i64 6))
  (output (inc_slice X g 1 4 1) (inc_slice X g none none -1) (inc_slice X 1.0 -1 0 -2)
          (inc_slice X (slice X none 3) none 3) (inc_slice X g 100 none) (inc_slice X g none none 4)
          (inc_slice Y g 1 none 2) (inc_slice Y (slice Y none none -1) none none -1) (inc_slice K 2 -100 100 3)))
