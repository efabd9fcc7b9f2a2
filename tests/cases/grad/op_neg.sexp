; d/dx of sum(C * neg(...)): the VJP of neg, a non-uniform cotangent C.
; wrt: x
(program op_neg
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (neg x))))
  (output L (grad L x)))
