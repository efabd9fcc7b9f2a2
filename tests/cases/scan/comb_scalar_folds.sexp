; scalar accumulators over a 1-D sequence, left and right.
; dims: T=7
(program comb_scalar_folds
  (input v (f64 T))
  (input s0 (f64))
  (output
    (scanl (fn (acc x) (sub (mul acc x) 1.0)) s0 v)
    (scanr (fn (acc x) (sub (mul acc x) 1.0)) s0 v)
    (foldl (fn (acc x) (sub (mul acc x) 1.0)) s0 v)
    (foldr (fn (acc x) (sub (mul acc x) 1.0)) s0 v)))
