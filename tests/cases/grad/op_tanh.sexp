; d/dx of sum(C * tanh(...)): the VJP of tanh, a non-uniform cotangent C.
; wrt: x
(program op_tanh
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (tanh x))))
  (output L (grad L x)))
