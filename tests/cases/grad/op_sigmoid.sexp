; d/dx of sum(C * sigmoid(...)): the VJP of sigmoid, a non-uniform cotangent
; C.
; wrt: x
(program op_sigmoid
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (sigmoid x))))
  (output L (grad L x)))
