; d/da, d/db of sum(C * outer(a, b)^2) + sum(outer(a, a)): g b and gᵀ a,
; and both operands one vector.
; wrt: a b
(program op_outer
  (input C (f64 3 4))
  (input a (f64 3))
  (input b (f64 4))
  (let P (outer a b))
  (let L (add (sum (mul C (mul P P))) (sum (outer a (tanh a)))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
