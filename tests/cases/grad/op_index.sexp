; index a row: the cotangent added into that row of zeros.
; wrt: x
(program op_index
  (input C (f64 3))
  (input x (f64 4 3))
  (let L (sum (mul C (index x 2))))
  (output L (grad L x)))
