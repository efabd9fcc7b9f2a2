; Folds over a symbolic length that the input binds to 0 (issue 41): the
; elements of L are (T, 2) matrices and L's values have T = 0, so every
; fold over an element's rows runs no step and gives its init (a running
; sum, a maximum that has no identity, a nonlinear foldr), in a map over
; L and on one element; a scanl over one gives no rows.
(program fold_symbolic_empty
  (input L (list (f64 T 2)))
  (input v (f64 2))
  (output
    (map (fn (e) (foldl (fn (acc x) (add acc x)) v e)) L)
    (map (fn (e) (reduce (fn (acc x) (maximum acc x)) (mul v 1e300) e)) L)
    (foldr (fn (acc x) (tanh (add acc x))) v (index L -1))
    (scanl (fn (acc x) (add acc x)) v (index L 0))
    T))
