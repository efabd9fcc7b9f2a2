; dims: T=5 N=3
(program reshape_symbolic
  (input X (f64 T N))
  (output (reshape X N T) (reshape X -1) (reshape X T N 1)))
