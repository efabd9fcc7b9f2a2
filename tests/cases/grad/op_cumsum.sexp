; cumsum along axis 0: the reverse cumulative sum of the cotangent.
; wrt: x
(program op_cumsum
  (input C (f64 5 3))
  (input x (f64 5 3))
  (let L (sum (mul C (cumsum x))))
  (output L (grad L x)))
