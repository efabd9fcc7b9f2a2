; concat along axis 0: the cotangent split at the operands' sizes.
; wrt: x y
(program op_concat0
  (input C (f64 5 3))
  (input x (f64 2 3))
  (input y (f64 3 3))
  (let L (sum (mul C (concat 0 x (tanh y)))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
