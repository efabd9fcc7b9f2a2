; element t is the state after x_0..x_t.
; dims: T=6 N=3
(program comb_scanl
  (input X (f64 T N))
  (input a0 (f64 N))
  (output (scanl (fn (acc x) (add (mul acc 0.5) x)) a0 X)))
