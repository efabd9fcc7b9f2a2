; cumprod along axis 1 of rows holding zeros (x * mask).
; wrt: x
(program op_cumprod_axis1_zero
  (input C (f64 2 4))
  (input x (f64 2 4))
  (let m (tensor (f64 2 4) 1.0 0.0 1.0 1.0  1.0 1.0 1.0 0.0))
  (let L (sum (mul C (cumprod (mul (add x 1.0) m) 1))))
  (output L (grad L x)))
