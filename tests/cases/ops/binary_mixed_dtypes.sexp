; f32 with f64 is f64; f32 with i64 is f64 (NumPy promotion).
(program binary_mixed_dtypes
  (input X (f32 3 4))
  (input Y (f64 3 4))
  (input K (i64 3 4))
  (output (add X Y) (mul X K) (sub K Y)))
