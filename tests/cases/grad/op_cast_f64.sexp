; cast f64 -> f64 (the identity) passes the cotangent through.
; wrt: x
(program op_cast_f64
  (input C (f64 4))
  (input x (f64 4))
  (let L (sum (mul C (cast f64 (mul x x)))))
  (output L (grad L x)))
