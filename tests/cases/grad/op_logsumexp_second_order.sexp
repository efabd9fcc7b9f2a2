; Second order through logsumexp: N = sum(dL/dX * V) for
; L = sum(C * logsumexp(3X, 0)), and dN/dX against finite differences of
; N (the gradient of softmax, through exp and the logsumexp again).
; wrt: X
(program op_logsumexp_second_order
  (input C (f64 4))
  (input V (f64 3 4))
  (input X (f64 3 4))
  (let L (sum (mul C (logsumexp (mul 3.0 X) 0))))
  (let N (sum (mul (grad L X) V)))
  (output N (grad N X)))
