(program binary_mul_outer
  (input a (f64 3 1))
  (input b (f64 4))
  (output (mul a b)))
