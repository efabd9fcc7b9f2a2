; d/dx of sum(C * gammaln(...)) on 1.2 + x^2 (positive, away from the poles): the VJP of gammaln, a non-uniform
; cotangent C, against finite differences.
; wrt: x
(program op_gammaln
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (gammaln (add 1.2 (mul x x))))))
  (output L (grad L x)))
