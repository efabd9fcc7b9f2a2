; stack along a new axis 0: each operand gets its row of the cotangent; x
; appears twice, so its rows add.
; wrt: x y
(program op_stack
  (input C (f64 3 4))
  (input x (f64 4))
  (input y (f64 4))
  (let L (sum (mul C (stack x (mul y y) x))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
