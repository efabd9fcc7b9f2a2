; fill from a 0-d value: the value gets the sum of the cotangent.
; wrt: v
(program op_fill
  (input C (f64 3 4))
  (input v (f64))
  (let L (sum (mul C (tanh (fill (f64 3 4) v)))))
  (output L (grad L v)))
