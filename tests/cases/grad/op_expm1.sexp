; d/dx of sum(C * expm1(...)) on 3x (x from the data rule, so over [-1.5, 1.5]): the VJP of expm1, a non-uniform
; cotangent C, against finite differences.
; wrt: x
(program op_expm1
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (expm1 (mul 3.0 x)))))
  (output L (grad L x)))
