; cumsum along axis 1.
; wrt: x
(program op_cumsum_axis1
  (input C (f64 3 5))
  (input x (f64 3 5))
  (let L (sum (mul C (cumsum x 1))))
  (output L (grad L x)))
