; dims: T=5 N=3
(program comb_map_one
  (input X (f64 T N))
  (output (map (fn (x) (mul x (exp x))) X)))
