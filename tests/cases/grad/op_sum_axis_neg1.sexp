; sum along axis -1, then weighted: the cotangent is broadcast back along the
; reduced axis.
; wrt: x
(program op_sum_axis_neg1
  (input c (f64 3))
  (input x (f64 3 4))
  (let L (sum (mul c (sum x -1))))
  (output L (grad L x)))
