; slogdet of a batch with a positive and a negative determinant: logdet
; gives g A⁻ᵀ, the sign no gradient (it is constant near A).
; wrt: X
(program op_slogdet
  (input X (f64 2 3 3))
  (input w (f64 2))
  (let A (add X (tensor (f64 2 3 3) 3.0 0.0 0.0 0.0 3.0 0.0 0.0 0.0 3.0 -3.0 0.0 0.0 0.0 -3.0 0.0 0.0 0.0 -3.0)))
  (let (sign logdet) (slogdet A))
  (let L (add (sum (mul w logdet)) (sum (mul sign w))))
  (output L (grad L X) sign))
