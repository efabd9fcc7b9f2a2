; dims: T=0 N=3
(program comb_map_empty
  (input X (f64 T N))
  (input a0 (f64 N))
  (output (map (fn (x) (mul x 2.0)) X) (scanl (fn (acc x) (add acc x)) a0 X)))
