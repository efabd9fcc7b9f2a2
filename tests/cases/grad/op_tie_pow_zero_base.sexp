; pow at a zero base (x[0] = 0: input 0 of the data rule): the exponent's
; gradient g log(x) x^y is 0 there, not NaN (PyTensor forces it to 0 where
; x == 0); the base's gradient g y x^(y-1) is 0 for y > 1. Finite
; differences cannot step below x = 0; the values are PyTensor's.
(program op_tie_pow_zero_base
  (input x (f64 5))
  (input y (f64 5))
  (input C (f64 5))
  (let e (add y 2.0))
  (let L (sum (mul C (pow x e))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
