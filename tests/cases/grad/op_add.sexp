; d/dx, d/dy of sum(C * add(x, y)) at shapes 3 4 and 3 4.
; wrt: x y
(program op_add
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64 3 4))
  (let L (sum (mul C (add x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
