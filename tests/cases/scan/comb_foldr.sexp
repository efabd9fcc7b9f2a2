; the state after x_{n-1}, ..., x_0.
; dims: T=6 N=3
(program comb_foldr
  (input X (f64 T N))
  (input a0 (f64 N))
  (output (foldr (fn (acc x) (add (mul acc 0.5) x)) a0 X)))
