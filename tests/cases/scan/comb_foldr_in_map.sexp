; a combinator inside a combinator's fn: per row, a right fold over its
; elements (a scalar state).
; dims: T=4 N=5
(program comb_foldr_in_map
  (input X (f64 T N))
  (input s0 (f64))
  (output (map (fn (row) (foldr (fn (acc e) (add (mul acc 0.5) e)) s0 row)) X)))
