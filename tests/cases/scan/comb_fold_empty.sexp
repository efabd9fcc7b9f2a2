; Folds over no rows give their init (issue 41): foldl, foldr and
; reduce over a (0, N) tensor, and a foldl over a filter that keeps no
; row of X (its length known only at run time); a foldl over the rows
; the filter keeps when some are kept. Optimized, the init still comes
; back (never the "index -1 out of range" error of an empty loop).
; dims: N=3 T=4
(program comb_fold_empty
  (input Z (f64 0 N))
  (input X (f64 T N))
  (input a0 (f64 N))
  (output
    (foldl (fn (acc x) (add (mul acc 0.5) x)) a0 Z)
    (foldr (fn (acc x) (tanh (add acc x))) a0 Z)
    (reduce (fn (acc x) (add acc x)) (ones (f64 N)) Z)
    (foldl (fn (acc x) (add acc x)) a0 (filter (fn (x) (gt (sum x) 1e300)) X))
    (foldl (fn (acc x) (add acc x)) a0 (filter (fn (x) (gt (sum x) 0.0)) X))))
