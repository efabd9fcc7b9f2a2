; d/dX of take along axis 0 with repeated and negative indices, a 2-D
; index array along axis 1, and a 0-D index: each picked position's
; cotangent added back at its position (repeats add up).
; wrt: X
(program op_take
  (input C (f64 5 3))
  (input D (f64 4 2 2))
  (input X (f64 4 3))
  (let T0 (take X (tensor (i64 5) 3 -1 0 3 1)))
  (let T1 (take X (tensor (i64 2 2) 0 -1 0 2) 1))
  (let L (add (add (sum (mul C (mul T0 T0))) (sum (mul D (sin T1)))) (sum (exp (take X -2)))))
  (output L (grad L X)))
