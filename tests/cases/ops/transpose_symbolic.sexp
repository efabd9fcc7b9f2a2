; dims: T=5 N=3
(program transpose_symbolic
  (input X (f64 T N))
  (output (transpose X) (transpose X 1 0)))
