; element t is the state after x_{n-1}, ..., x_t: lined up with X.
; dims: T=6 N=3
(program comb_scanr
  (input X (f64 T N))
  (input a0 (f64 N))
  (output (scanr (fn (acc x) (add (mul acc 0.5) x)) a0 X)))
