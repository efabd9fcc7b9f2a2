(program slice_negative_step
  (input X (f64 8))
  (output (slice X none none -1) (slice X -1 0 -2) (slice X 5 none -3) (slice X none 2 -1) (slice X 6 1 -2)))
