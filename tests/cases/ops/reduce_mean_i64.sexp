; mean of integers is f64.
(program reduce_mean_i64
  (input K (i64 3 4))
  (output (mean K) (mean K 0) (mean K -1)))
