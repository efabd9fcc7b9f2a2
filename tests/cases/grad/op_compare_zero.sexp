; No gradient flows through a comparison: d/dx of sum(C * cast(gt(x, 0)) + x)
; is ones.
; wrt: x
(program op_compare_zero
  (input C (f64 6))
  (input x (f64 6))
  (let L (sum (add (mul C (cast f64 (gt x 0.0))) x)))
  (output L (grad L x)))
