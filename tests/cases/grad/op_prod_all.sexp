; prod of every element, none zero: g * prod / x.
; wrt: x
(program op_prod_all
  (input x (f64 3 4))
  (let L (prod (add x 1.0)))
  (output L (grad L x)))
