; d/dx, d/dy of sum(C * mul(x, y)) at shapes 3 4 and 3 4.
; wrt: x y
(program op_mul
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64 3 4))
  (let L (sum (mul C (mul x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
