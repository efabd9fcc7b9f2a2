; d/dX, d/dG, d/dH of inc_take with repeated indices (numpy.add.at), along
; axis 0 with G (5, 3) and along axis 1 with H a row broadcast.
; wrt: X G H
(program op_inc_take
  (input C (f64 4 3))
  (input X (f64 4 3))
  (input G (f64 5 3))
  (input H (f64 4 1))
  (let J (tensor (i64 5) 3 -1 0 3 1))
  (let Y (inc_take (inc_take X (tanh G) J) (mul H H) (tensor (i64 2) 2 2) 1))
  (let L (sum (mul C (mul Y Y))))
  (let (gX gG gH) (grad L X G H))
  (output L gX gG gH))
