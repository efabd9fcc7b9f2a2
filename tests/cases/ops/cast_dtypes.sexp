; float to int truncates toward zero; nonzero casts to true.
(program cast_dtypes
  (input X (f64 3 4))
  (input K (i64 3 4))
  (input B (bool 3 4))
  (output (cast f32 X) (cast i64 (mul X 10.0)) (cast bool X) (cast f64 B) (cast i64 B) (cast f64 K) (cast f32 K) (cast bool K)))
