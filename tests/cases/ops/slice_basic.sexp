(program slice_basic
  (input X (f64 8 3))
  (output (slice X 1 3 1) (slice X 0 none 1) (slice X none 5 1) (slice X 2 none 1)))
