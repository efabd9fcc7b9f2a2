; d/dX, d/dV, d/dr of sum(C * Y^2) with rows ::-2 of X replaced by V and
; rows 1:3 by the row r broadcast: X gets nothing in the replaced rows, r
; the sum over the two rows it was broadcast to.
; wrt: X V r
(program op_set_slice
  (input C (f64 5 3))
  (input X (f64 5 3))
  (input V (f64 3 3))
  (input r (f64 3))
  (let Y (set_slice (set_slice X (exp V) none none -2) r 1 2 1))
  (let L (sum (mul C (mul Y Y))))
  (let (gX gV gr) (grad L X V r))
  (output L gX gV gr))
