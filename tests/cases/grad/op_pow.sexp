; d/dx, d/dy of sum(C * (x + 1)^y): pow's VJPs g y x^(y-1) and g log(x) x^y.
; wrt: x y
(program op_pow
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64 3 4))
  (let L (sum (mul C (pow (add x 1.0) y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
