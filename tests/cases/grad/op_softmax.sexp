; d/dX of sum(C * softmax(3X, 1)) + sum(D * log_softmax(X, 0)): the VJPs
; y (g - sum(g y)) and g - exp(out) sum(g) along the axis, against
; finite differences.
; wrt: X
(program op_softmax
  (input C (f64 3 4))
  (input D (f64 3 4))
  (input X (f64 3 4))
  (let L (add (sum (mul C (softmax (mul 3.0 X) 1))) (sum (mul D (log_softmax X 0)))))
  (output L (grad L X)))
