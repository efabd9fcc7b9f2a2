; Broadcasting across ranks: x (2,3,4) - y (4,): dL/dy = -(sum of the
; cotangent over the two leading axes).
; wrt: x y
(program op_sub_bcast_rank
  (input C (f64 2 3 4))
  (input x (f64 2 3 4))
  (input y (f64 4))
  (let L (sum (mul C (sub x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
