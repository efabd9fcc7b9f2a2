; Broadcast exponent: (x + 1)^y with y (4,): dL/dy sums g log(x+1) (x+1)^y
; over the rows.
; wrt: x y
(program op_pow_bcast
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64 4))
  (let L (sum (mul C (pow (add x 1.0) y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
