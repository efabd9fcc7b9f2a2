; mean along axis 1: g / 4 broadcast back along it.
; wrt: x
(program op_mean_axis
  (input c (f64 3))
  (input x (f64 3 4))
  (let L (sum (mul c (mean x 1))))
  (output L (grad L x)))
