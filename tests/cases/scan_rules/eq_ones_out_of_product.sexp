; A ones-like factor (the seed of a sum's gradient: (where true 1.0 v),
; shaped like v) moves out of a product (mul-one-out: x * (y * 1) ==
; (x * y) * 1, exact) where mul-one drops it: e * (k * ones) becomes
; e * k, one product per element instead of two. y is scaled to 1e300 so
; that e * y overflows where it does either way.
; dims: T=6
; scale: y=1e300
; scans_after: 0
; fires: mul-one-out mul-one
(program eq_ones_out_of_product
  (input e (f64 T))
  (input y (f64))
  (input v (f64 T))
  (let ones (where true (fill (f64) 1.0) v))
  (output (mul e (mul y ones)) (mul e (mul -0.5 (mul y ones)))))
