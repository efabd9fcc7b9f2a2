; dims: T=5 N=3
(program reduce_symbolic
  (input X (f64 T N))
  (output (sum X 0) (mean X -1) (max X)))
