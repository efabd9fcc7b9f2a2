; max along axis 0 (no ties), weighted.
; wrt: x
(program op_max_axis
  (input c (f64 4))
  (input x (f64 3 4))
  (let L (sum (mul c (max x 0))))
  (output L (grad L x)))
