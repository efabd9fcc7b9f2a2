; min along axis -1 (no ties), weighted.
; wrt: x
(program op_min_axis
  (input c (f64 3))
  (input x (f64 3 4))
  (let L (sum (mul c (min x -1))))
  (output L (grad L x)))
