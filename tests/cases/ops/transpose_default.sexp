(program transpose_default
  (input A (f64 3 4))
  (input X (f64 2 3 4))
  (input v (f64 5))
  (output (transpose A) (transpose X) (transpose v)))
