; slice with a negative step, ::-2 on 5 rows: rows 4, 2, 0.
; wrt: x
(program op_slice_neg_step
  (input C (f64 3 2))
  (input x (f64 5 2))
  (let L (sum (mul C (slice x none none -2))))
  (output L (grad L x)))
