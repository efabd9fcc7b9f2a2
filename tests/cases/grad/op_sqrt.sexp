; d/dx of sum(C * sqrt(x + 1)): sqrt's VJP g/(2 sqrt x) away from 0.
; wrt: x
(program op_sqrt
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (sqrt (add x 1.0)))))
  (output L (grad L x)))
