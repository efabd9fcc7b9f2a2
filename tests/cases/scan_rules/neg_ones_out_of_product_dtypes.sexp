; Not across dtypes: f32 x * (f32 y * f64 ones) multiplies in f64, where
; (x * y) in f32 can overflow (x, y scaled to 1e30: x * y is 1e60 in f64,
; inf in f32), so mul-one-out must not fire and the outputs stay finite.
; dims: T=6
; scale: x=1e30 y=1e30
; scans_after: 0
; not_fires: mul-one-out
(program neg_ones_out_of_product_dtypes
  (input x (f32 T))
  (input y (f32))
  (input v (f64 T))
  (let ones (where true (fill (f64) 1.0) v))
  (output (mul x (mul y ones))))
