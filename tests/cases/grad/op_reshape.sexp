; reshape (2,6) -> (3,4): the cotangent reshaped to x's shape.
; wrt: x
(program op_reshape
  (input C (f64 3 4))
  (input x (f64 2 6))
  (let L (sum (mul C (reshape x 3 4))))
  (output L (grad L x)))
