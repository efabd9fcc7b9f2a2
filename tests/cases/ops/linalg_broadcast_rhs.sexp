; solve with one matrix and a stack of right-hand sides (its batch
; broadcasts), and a stack (2, 1) of matrices against a stack (3,) of
; right-hand sides (batch (2, 3)).
(program linalg_broadcast_rhs
  (input X (f64 3 3))
  (input B (f64 4 3 2))
  (input Y (f64 2 1 3 3))
  (input C (f64 3 3 1))
  (let I (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))
  (let A (add (matmul X (transpose X)) (mul 3.0 I)))
  (let S (add (matmul Y (transpose Y 0 1 3 2)) I))
  (output (solve A B) (solve S C) (solve_triangular S C false)))
