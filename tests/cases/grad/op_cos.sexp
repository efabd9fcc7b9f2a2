; d/dx of sum(C * cos(...)): the VJP of cos, a non-uniform cotangent C.
; wrt: x
(program op_cos
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (cos x))))
  (output L (grad L x)))
