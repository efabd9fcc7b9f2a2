; solve with a batch of non-symmetric matrices (A = X + 3I, well
; conditioned) and one right-hand side matrix broadcast over the batch:
; gB = solve(Aᵀ, G) summed over the batch, gA = -gB Xᵀ.
; wrt: X B
(program op_solve
  (input X (f64 2 3 3))
  (input B (f64 3 2))
  (input W (f64 2 3 2))
  (let A (add X (mul 3.0 (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))))
  (let L (sum (mul W (solve A B))))
  (let (gX gB) (grad L X B))
  (output L gX gB))
