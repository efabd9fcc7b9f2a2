; prod along axis 1 of rows holding zero, one and two zeros (x * mask): the
; zero-safe rule per row.
; wrt: x
(program op_prod_zeros_axis
  (input x (f64 3 4))
  (let m (tensor (f64 3 4) 1.0 1.0 1.0 1.0  1.0 0.0 1.0 1.0  0.0 1.0 0.0 1.0))
  (let L (sum (mul (tensor (f64 3) 0.7 -1.3 2.1) (prod (mul (add x 1.0) m) 1))))
  (output L (grad L x)))
