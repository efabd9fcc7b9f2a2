(program reduce_sum_negative_axes
  (input X (f64 2 3 4))
  (output (sum X -1) (sum X -2) (sum X -3) (sum X 1)))
