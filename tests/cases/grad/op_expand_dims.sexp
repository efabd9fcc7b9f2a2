; expand_dims at axis 1: the length-1 axis dropped from the cotangent.
; wrt: x
(program op_expand_dims
  (input C (f64 3 1 4))
  (input x (f64 3 4))
  (let L (sum (mul C (expand_dims x 1))))
  (output L (grad L x)))
