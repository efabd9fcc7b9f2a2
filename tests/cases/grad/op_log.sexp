; d/dx of sum(C * log(x + 1)): log's VJP g/x away from 0.
; wrt: x
(program op_log
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (log (add x 1.0)))))
  (output L (grad L x)))
