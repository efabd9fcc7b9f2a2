; d/dx, d/dy of sum(C * maximum(x, y)) where x and y never tie (ties:
; op_tie_maximum).
; wrt: x y
(program op_maximum
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64 3 4))
  (let L (sum (mul C (maximum x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
