(program compare_literal_mixed
  (input X (f64 3 4))
  (input K (i64 3 4))
  (input b (f64 4))
  (output (gt X 0.0) (le K 0) (lt K X) (ge X b) (eq K 2)))
