; dims: T=3
(program grad_squeeze
  (input X (f64 3 1 4))
  (input R (f64 1 T))
  (input C (f64 T 1))
  (input O (f64 1))
  (output (squeeze X 1) (squeeze X -2) (squeeze R 0) (squeeze C 1) (squeeze C -1) (squeeze O 0)
          (squeeze (expand_dims R 2) -1) (mul (squeeze (transpose X) 1) 2.0)))
