; sum along axis 0, then weighted: the cotangent is broadcast back along the
; reduced axis.
; wrt: x
(program op_sum_axis0
  (input c (f64 4))
  (input x (f64 3 4))
  (let L (sum (mul c (sum x 0))))
  (output L (grad L x)))
