; reshape with an inferred size: (2,3,2) -> (-1, 4).
; wrt: x
(program op_reshape_infer
  (input C (f64 3 4))
  (input x (f64 2 3 2))
  (let L (sum (mul C (reshape x -1 4))))
  (output L (grad L x)))
