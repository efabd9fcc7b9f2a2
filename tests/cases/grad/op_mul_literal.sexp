; A weak literal operand: d/dx of sum(C * (2.5 x - 1.0)) = 2.5 C; literals get
; no gradient.
; wrt: x
(program op_mul_literal
  (input C (f64 5))
  (input x (f64 5))
  (let L (sum (mul C (sub (mul 2.5 x) 1.0))))
  (output L (grad L x)))
