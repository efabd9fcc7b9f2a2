; Broadcasting: x (4,3) + y (3,): dL/dy sums the cotangent over the broadcast
; rows (sum-to-shape).
; wrt: x y
(program op_add_bcast_row
  (input C (f64 4 3))
  (input x (f64 4 3))
  (input y (f64 3))
  (let L (sum (mul C (add x y))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
