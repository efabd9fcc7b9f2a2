; numpy.linalg's ops on a stack of two well-conditioned 3x3 matrices
; (A = X Xᵀ + 4 I); solve's right-hand side a matrix broadcast over the
; stack, and a 1-D vector (NumPy 2: a vector only when 1-D).
(program linalg_batched
  (input X (f64 2 3 3))
  (input B (f64 3 2))
  (input b (f64 3))
  (let I (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))
  (let A (add (matmul X (transpose X 0 2 1)) (mul 4.0 I)))
  (let (sign logdet) (slogdet A))
  (output (solve A B) (solve A b) (cholesky A) (inv A) (det A) sign logdet))
