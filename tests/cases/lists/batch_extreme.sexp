; The batching rewrite at extreme magnitudes: sequences of lengths 2, 0, 3
; whose values are about 1e300, Wx about 1e-300 (products near 1), b about
; 1e300 (tanh saturates) and h0 about 1e-300 (the empty sequence returns
; it as it is, subnormal products included). Optimized (batched) and
; --no-opt must both give NumPy's per-sequence values: no overflow from
; the padding, no inf or NaN.
(program batch_extreme
  (input L (list (list (f64 4))))
  (input Wx (f64 3 4))
  (input Wh (f64 3 3))
  (input b (f64 3))
  (input h0 (f64 3))
  (let hs (map (fn (s) (foldl (fn (h x) (tanh (add (add (dot Wx x) (dot Wh h)) b))) h0 s)) L))
  (let H (stack hs))
  (output hs (sum (mul H H))))
