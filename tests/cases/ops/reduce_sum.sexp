(program reduce_sum
  (input X (f64 3 4))
  (output (sum X) (sum X 0) (sum X 1)))
