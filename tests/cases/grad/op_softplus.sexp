; d/dx of sum(C * softplus(...)) on 3x (x from the data rule, so over [-1.5, 1.5]): the VJP of softplus, a non-uniform
; cotangent C, against finite differences.
; wrt: x
(program op_softplus
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (softplus (mul 3.0 x)))))
  (output L (grad L x)))
