; minimum at ties: the tie goes wholly to the first argument, here b (a
; let-bound value equal to x at the odd positions). Values are PyTensor's.
(program op_tie_minimum
  (input C (f64 6))
  (input x (f64 6))
  (input y (f64 6))
  (let b (where (tensor (bool 6) false true false true false true) x (mul y -2.0)))
  (let L (sum (mul C (minimum b x))))
  (let (gx gy gb) (grad L x y b))
  (output L gx gy gb))
