; d/dx of sum(C * exp(...)): the VJP of exp, a non-uniform cotangent C.
; wrt: x
(program op_exp
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (exp x))))
  (output L (grad L x)))
