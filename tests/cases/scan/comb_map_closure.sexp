; dims: T=5 N=3
(program comb_map_closure
  (input X (f64 T N))
  (input w (f64 N))
  (output (map (fn (x) (dot x w)) X)))
