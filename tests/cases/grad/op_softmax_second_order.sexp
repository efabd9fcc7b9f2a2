; Second order through softmax and log_softmax: N = sum(dL/dX * V) for
; L = sum(C * softmax(2X, 0)) + sum(D * log_softmax(X, -1)), dN/dX
; against finite differences of N.
; wrt: X
(program op_softmax_second_order
  (input C (f64 3 4))
  (input D (f64 3 4))
  (input V (f64 3 4))
  (input X (f64 3 4))
  (let L (add (sum (mul C (softmax (mul 2.0 X) 0))) (sum (mul D (log_softmax X -1)))))
  (let N (sum (mul (grad L X) V)))
  (output N (grad N X)))
