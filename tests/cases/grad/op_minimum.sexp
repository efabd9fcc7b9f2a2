; d/dx, d/dy of sum(C * minimum(x, y)) where x and y never tie (ties:
; op_tie_minimum).
; wrt: x y
(program op_minimum
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64 3 4))
  (let L (sum (mul C (minimum x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
