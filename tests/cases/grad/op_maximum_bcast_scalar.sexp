; maximum(x, y) with y a 0-d input (no ties at these values): dL/dy is the sum
; of g where y > x.
; wrt: x y
(program op_maximum_bcast_scalar
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64))
  (let L (sum (mul C (maximum x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
