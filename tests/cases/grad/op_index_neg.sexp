; index from the end, two indices: X[-1, 1] a scalar.
; wrt: x
(program op_index_neg
  (input C (f64))
  (input x (f64 4 3))
  (let L (sum (mul C (index x -1 1))))
  (output L (grad L x)))
