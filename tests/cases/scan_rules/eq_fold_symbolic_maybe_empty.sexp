; Folds over a symbolic length, run with it bound to 0 (issue 41): the
; parser reads each as its last state or its init (row 0 of the states
; reversed, then the init), fold-read-last turns that into the last row of
; the init followed by the states, and scan-to-reduction makes the running
; sum, product, maximum and minimum whole-array ops that give the init
; when there is no row (max and min over the init's row followed by the
; rows: they have no identity). No loop is left, and nothing fails at 0.
; dims: T=0 N=3
; cost_dims: T=1000
; scans_after: 0
; fires: fold-read-last scan-to-reduction
(program eq_fold_symbolic_maybe_empty
  (input X (f64 T N))
  (input a0 (f64 N))
  (output
    (foldl (fn (acc x) (add acc (mul x x))) a0 X)
    (foldl (fn (acc x) (mul acc x)) a0 X)
    (reduce (fn (acc x) (maximum acc x)) a0 X)
    (foldr (fn (acc x) (minimum acc (exp x))) a0 X)))
