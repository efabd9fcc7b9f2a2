; cumprod along axis 0 (no zeros).
; wrt: x
(program op_cumprod
  (input C (f64 5))
  (input x (f64 5))
  (let L (sum (mul C (cumprod (add x 1.0)))))
  (output L (grad L x)))
