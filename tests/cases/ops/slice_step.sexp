(program slice_step
  (input X (f64 8 3))
  (output (slice X 0 none 2) (slice X 1 none 3) (slice X none 7 3) (slice X 1 6 2)))
