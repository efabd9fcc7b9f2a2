; argmax, argmin, all and any have zero gradient (integer and bool
; results: JAX's and PyTensor's convention), but the values they select
; keep theirs: L = sum(X * onehot(argmax X, axis 1)) + argmin(X) * sum(X)
; + sum(where(any(X > 0.4, 1), sum(X^2, 1), 0)) + sum(where(all(X > -0.45,
; 1), 1, 0) * X[:, 0]): d/dX is the one-hot of each row's maximum, plus
; argmin(X) (a constant factor), plus 2X on the rows holding an element
; above 0.4, plus the first column's rows where every element is above
; -0.45 (no element within the finite-difference step of a tie or a
; threshold).
; wrt: X
(program op_argmax_all_any
  (input X (f64 3 4))
  (let onehot (cast f64 (eq (expand_dims (arange 4) 0) (expand_dims (argmax X 1) 1))))
  (let L (add (add (sum (mul X onehot)) (mul (cast f64 (argmin X)) (sum X)))
              (add (sum (where (any (gt X 0.4) 1) (sum (mul X X) 1) 0.0))
                   (sum (mul (cast f64 (all (gt X -0.45) 1)) (index (transpose X) 0))))))
  (output L (grad L X)))
