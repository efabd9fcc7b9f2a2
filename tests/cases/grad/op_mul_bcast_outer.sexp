; Broadcasting on both sides: x (4,1) * y (1,3): each gradient sums over the
; axis where its operand has length 1.
; wrt: x y
(program op_mul_bcast_outer
  (input C (f64 4 3))
  (input x (f64 4 1))
  (input y (f64 1 3))
  (let L (sum (mul C (mul x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
