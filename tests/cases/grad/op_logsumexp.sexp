; d/dX of sum(C * logsumexp(3X, 1)) + logsumexp(X): the VJP of
; logsumexp is softmax along the reduced axis, exp(x - logsumexp(x)),
; against finite differences.
; wrt: X
(program op_logsumexp
  (input C (f64 3))
  (input X (f64 3 4))
  (let L (add (sum (mul C (logsumexp (mul 3.0 X) 1))) (logsumexp X)))
  (output L (grad L X)))
