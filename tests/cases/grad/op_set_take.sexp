; d/dX, d/dV, d/dW of set_take with repeated indices: the last write of a
; repeated index stays, so only its row of V gets a gradient (the earlier
; ones were overwritten: zeros, as finite differences give); a 2-D index
; array along axis 1 with W broadcast from a column; X gets nothing where
; it was written over.
; wrt: X V W
(program op_set_take
  (input C (f64 4 3))
  (input X (f64 4 3))
  (input V (f64 5 3))
  (input W (f64 4 1 1))
  (let J (tensor (i64 5) 3 -1 0 3 1))
  (let Y (set_take (set_take X (sin V) J) (exp W) (tensor (i64 2 2) 0 -1 0 0) 1))
  (let L (sum (mul C (mul Y Y))))
  (let (gX gV gW) (grad L X V W))
  (output L gX gV gW))
