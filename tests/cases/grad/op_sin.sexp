; d/dx of sum(C * sin(...)): the VJP of sin, a non-uniform cotangent C.
; wrt: x
(program op_sin
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (sin x))))
  (output L (grad L x)))
