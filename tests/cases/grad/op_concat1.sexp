; concat along axis 1 of three operands.
; wrt: x y
(program op_concat1
  (input C (f64 2 6))
  (input x (f64 2 1))
  (input y (f64 2 2))
  (let L (sum (mul C (concat 1 x y (sin y) x))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
