; sum over every axis: the cotangent broadcast back to x's shape.
; wrt: x
(program op_sum_all
  (input x (f64 3 4))
  (let L (mul (sum (tanh x)) 1.5))
  (output L (grad L x)))
