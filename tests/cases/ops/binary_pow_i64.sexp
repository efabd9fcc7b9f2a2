(program binary_pow_i64
  (input K (i64 3 4))
  (input J (i64 3 4))
  (output (pow K 2) (pow K (abs J))))
