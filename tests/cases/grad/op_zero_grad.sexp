; the cost does not depend on y: its gradient is zeros of y's type.
; wrt: x y
(program op_zero_grad
  (input x (f64 3))
  (input y (f64 2 2))
  (let L (sum (exp x)))
  (let (gx gy) (grad L x y))
  (output L gx gy))
