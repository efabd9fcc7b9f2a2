(program reduce_i64
  (input K (i64 3 4))
  (output (sum K) (max K 1) (min K) (prod K 0) (sum K -2)))
