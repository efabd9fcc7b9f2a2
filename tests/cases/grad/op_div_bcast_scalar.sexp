; A scalar divisor: x (3,4) / (y + 2), y a 0-d input: dL/dy sums -g x/y^2 over
; every element.
; wrt: x y
(program op_div_bcast_scalar
  (input C (f64 3 4))
  (input x (f64 3 4))
  (input y (f64))
  (let L (sum (mul C (div x (add y 2.0)))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
