; cholesky of a batch of SPD matrices A = X Xᵀ + 4I: the symmetrized
; L⁻ᵀ Φ(Lᵀ G) L⁻¹, through A's construction to X.
; wrt: X
(program op_cholesky
  (input X (f64 2 3 3))
  (input W (f64 2 3 3))
  (let A (add (matmul X (transpose X 0 2 1)) (mul 4.0 (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))))
  (let L (sum (mul W (cholesky A))))
  (output L (grad L X)))
