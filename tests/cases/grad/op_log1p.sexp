; d/dx of sum(C * log1p(...)): the VJP of log1p, a non-uniform cotangent C.
; wrt: x
(program op_log1p
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (log1p x))))
  (output L (grad L x)))
