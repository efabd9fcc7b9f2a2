; a map over rows whose body maps over the elements of a row.
; dims: T=4 N=3
(program comb_map_nested
  (input X (f64 T N))
  (output (map (fn (row) (map (fn (e) (add (mul e e) 1.0)) row)) X)))
