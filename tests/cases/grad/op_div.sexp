; d/dx, d/dy of sum(C * x / (y + 2)): div's VJPs g/y and -g x/y^2.
; wrt: x y
(program op_div
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64 3 4))
  (let L (sum (mul C (div x (add y 2.0)))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
