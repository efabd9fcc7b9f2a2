; i64 and f64 branches give f64; i64 branches stay i64.
(program where_mixed_dtype
  (input C (bool 3 4))
  (input K (i64 3 4))
  (input X (f64 3 4))
  (output (where C K X) (where (gt K 0) K (neg K))))
