(program slice_negative_bounds
  (input X (f64 8 2))
  (output (slice X -3 -1 1) (slice X -4 none 1) (slice X none -2 1) (slice X -1 -6 -2)))
