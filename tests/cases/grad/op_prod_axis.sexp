; prod along axis 0 (none zero), weighted.
; wrt: x
(program op_prod_axis
  (input c (f64 4))
  (input x (f64 3 4))
  (let L (sum (mul c (prod (add x 1.0) 0))))
  (output L (grad L x)))
