; two overlapping slices: their increments add.
; wrt: x
(program op_slice_overlap
  (input x (f64 6))
  (let L (sum (mul (slice x 0 4) (slice x 2 6))))
  (output L (grad L x)))
