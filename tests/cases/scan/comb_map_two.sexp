; dims: T=5 N=3
(program comb_map_two
  (input X (f64 T N))
  (input Y (f64 T N))
  (output (map (fn (x y) (sub x (mul 2.0 y))) X Y)))
