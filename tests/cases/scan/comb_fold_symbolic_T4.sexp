; Folds over a symbolic length bound to 4 at run time (issue 41): a fold
; over T rows may run no step, so it is read as its last state or its
; init (never "index -1 out of range"), optimized too: foldl, foldr and
; reduce of f64 states, a running maximum (no identity: kept a loop), an
; i64 fold, folds nested in a map over the columns (their rows have T
; elements), and scanl (T states). Extreme inits: the init comes back
; bit for bit when no step runs.
; dims: T=4 N=3
; scale: a0=1e300 b0=1e-300
(program comb_fold_symbolic_T4
  (input X (f64 T N))
  (input a0 (f64 N))
  (input b0 (f64 N))
  (input K (i64 T N))
  (output
    (foldl (fn (acc x) (add (mul acc 0.5) x)) a0 X)
    (foldr (fn (acc x) (tanh (add acc x))) b0 X)
    (reduce (fn (acc x) (add acc x)) a0 X)
    (foldl (fn (acc x) (maximum acc x)) b0 X)
    (foldl (fn (acc x) (add (mul acc 3) x)) (ones (i64 N)) K)
    (map (fn (col) (foldl (fn (acc e) (add acc e)) 1.0 col)) (transpose X))
    (scanl (fn (acc x) (add acc x)) a0 X)))
