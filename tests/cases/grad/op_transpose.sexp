; transpose reversing the axes: the cotangent transposed back.
; wrt: x
(program op_transpose
  (input C (f64 4 3 2))
  (input x (f64 2 3 4))
  (let L (sum (mul C (transpose x))))
  (output L (grad L x)))
