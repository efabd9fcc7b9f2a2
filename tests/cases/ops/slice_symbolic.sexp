; dims: T=7
(program slice_symbolic
  (input X (f64 T 3))
  (output (slice X 1 none 2) (slice X none none -2) (slice X -3 none 1)))
