; linrec: the gradient runs the same recurrence backwards (a per-step,
; per-element factor; U; H0 a row).
; wrt: a u h
(program op_linrec
  (input C (f64 5 3))
  (input a (f64 5 3))
  (input u (f64 5 3))
  (input h (f64 3))
  (let L (sum (mul C (linrec a u h))))
  (let (ga gu gh) (grad L a u h))
  (output L ga gu gh))
