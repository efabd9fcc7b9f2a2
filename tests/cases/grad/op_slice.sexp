; slice rows 1:4: the cotangent added into those rows.
; wrt: x
(program op_slice
  (input C (f64 3 2))
  (input x (f64 5 2))
  (let L (sum (mul C (slice x 1 4))))
  (output L (grad L x)))
