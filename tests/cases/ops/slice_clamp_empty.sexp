; NumPy clamps out-of-range bounds, and an empty range gives 0 rows.
(program slice_clamp_empty
  (input X (f64 8 2))
  (output (slice X -100 100 2) (slice X 100 none -1) (slice X 3 1 1) (slice X 1 3 -1)))
