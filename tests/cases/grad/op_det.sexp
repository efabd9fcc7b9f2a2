; det of a batch with a positive and a negative determinant:
; gA = g det A⁻ᵀ.
; wrt: X
(program op_det
  (input X (f64 2 3 3))
  (input w (f64 2))
  (let A (add X (tensor (f64 2 3 3) 3.0 0.0 0.0 0.0 3.0 0.0 0.0 0.0 3.0 -3.0 0.0 0.0 0.0 -3.0 0.0 0.0 0.0 -3.0)))
  (let L (sum (mul w (det A))))
  (output L (grad L X)))
