; dims: T=6 N=3
(program comb_reduce
  (input X (f64 T N))
  (input a0 (f64 N))
  (output (reduce (fn (acc x) (add acc x)) a0 X)
          (reduce (fn (acc x) (maximum acc x)) a0 X)))
