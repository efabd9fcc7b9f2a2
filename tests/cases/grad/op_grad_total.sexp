; Each X on its own (SPEC): with Wt = 0.5 W, the gradient for W is the total
; derivative through Wt too. The cost is a function of inputs, so finite
; differences check dL/dW; dL/dWt (a let-bound value) is checked in
; op_let_bound.
; wrt: W
(program op_grad_total
  (input W (f64 2 3))
  (input x (f64 3))
  (let Wt (mul 0.5 W))
  (let L (sum (tanh (add (dot W x) (dot Wt x)))))
  (output L (grad L W)))
