; inv of a batch of non-symmetric matrices: gA = -Yᵀ G Yᵀ.
; wrt: X
(program op_inv
  (input X (f64 2 3 3))
  (input W (f64 2 3 3))
  (let A (add X (mul 3.0 (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))))
  (let L (sum (mul W (inv A))))
  (output L (grad L X)))
