; Each X on its own (SPEC §1): with Wt = 0.5 W, (grad L W Wt) gives for W
; the total derivative, flowing through Wt too, and for Wt the partial one.
; Values are PyTensor's.
(program op_let_total
  (input W (f64 2 3))
  (input x (f64 3))
  (let Wt (mul 0.5 W))
  (let L (sum (tanh (add (dot W x) (dot Wt x)))))
  (let (gW gWt) (grad L W Wt))
  (output L gW gWt))
