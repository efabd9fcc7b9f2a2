; min along an axis with ties in every column, and a min of a vector with a
; tied minimum: every tied element gets the whole cotangent. PyTensor's values.
(program op_tie_min_reduce
  (input x (f64 3))
  (input C (f64 3))
  (let s (stack x (mul x 1.0) (add x 1.0)))
  (let L (add (sum (mul C (min s 0))) (min (concat 0 x x))))
  (let (gx gs) (grad L x s))
  (output L gx gs))
