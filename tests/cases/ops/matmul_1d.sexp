; 1-D operands are promoted and the added axis removed (numpy.matmul).
(program matmul_1d
  (input v (f64 3))
  (input A (f64 3 4))
  (input w (f64 4))
  (input Bt (f64 2 3 4))
  (output (matmul v A) (matmul A w) (matmul Bt w) (matmul w w)))
