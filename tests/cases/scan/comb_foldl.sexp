; a non-associative step, so the order matters.
; dims: T=6 N=3
(program comb_foldl
  (input X (f64 T N))
  (input a0 (f64 N))
  (output (foldl (fn (acc x) (add (mul acc 0.5) x)) a0 X)))
