; max over ties (PyTensor's rule: every tied element gets the whole
; cotangent; JAX would split it). z holds x twice, so its maximum is tied;
; d/dz is 2 at both copies and d/dx sums them (4 at x's largest element).
; The axis form ties every column. Values are PyTensor's.
(program op_tie_max_reduce
  (input x (f64 4))
  (input C (f64 4))
  (let z (concat 0 x x))
  (let L (add (mul 2.0 (max z)) (sum (mul C (max (stack x x) 0)))))
  (let (gx gz) (grad L x z))
  (output L gx gz))
