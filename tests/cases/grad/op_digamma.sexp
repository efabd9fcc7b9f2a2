; d/dx of sum(C * digamma(...)) on 1.2 + x^2 (positive, away from the poles): the VJP of digamma, a non-uniform
; cotangent C, against finite differences.
; wrt: x
(program op_digamma
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (digamma (add 1.2 (mul x x))))))
  (output L (grad L x)))
