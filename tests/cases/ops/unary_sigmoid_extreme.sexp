; sigmoid far in both tails (|x| up to 2000): exactly 0 and 1, no NaN.
(program unary_sigmoid_extreme
  (input X (f64 12))
  (output (sigmoid (mul X 4000.0))))
