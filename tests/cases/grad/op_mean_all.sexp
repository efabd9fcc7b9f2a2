; mean over every element: g / N.
; wrt: x
(program op_mean_all
  (input x (f64 3 4))
  (let L (mean (mul x x)))
  (output L (grad L x)))
