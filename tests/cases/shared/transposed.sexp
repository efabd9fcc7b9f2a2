; A shared matrix replaced by its transpose plus a scaled input (a view of
; the old value is read while the new one is written), and a weak literal
; update of an f64 scalar.
; dims: N=3
(program transposed
  (input x (f64 N N))
  (shared M (f64 N N))
  (shared s (f64))
  (update M (add (transpose M) (mul x 0.5)))
  (update s 7)
  (output (sum M) s))
