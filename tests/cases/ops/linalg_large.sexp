; A 40x40 system (A = X Xᵀ + 40 I): the factorizations past the small sizes.
(program linalg_large
  (input X (f64 40 40))
  (input B (f64 40 3))
  (input D (f64 40))
  (let I (cast f64 (eq (expand_dims (arange 40) 1) (arange 40))))
  (let M (add (matmul X (transpose X)) (mul 40.0 I)))
  (let (sign logdet) (slogdet M))
  (output (solve M B) (inv M) (cholesky M) sign logdet (det (mul M 0.1)) (solve_triangular M D true)))
