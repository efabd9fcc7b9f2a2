; d/dx of sum(C * sign(x) * x): no gradient flows through sign, so dL/dx = C *
; sign(x) (no element of x is 0).
; wrt: x
(program op_sign
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (mul (sign x) x))))
  (output L (grad L x)))
