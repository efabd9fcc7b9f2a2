; x ** TWOS is x * x when the twos are an array x's type absorbs:
; PyTensor writes a user's `x ** 2` as a pow by a broadcastable (i8 1 1)
; constant, which the converter reads as (i32 1 1). The pow goes, at
; extreme magnitudes (1e200 squares to inf both ways, 1e-200 to 0),
; with infinities and NaN, and for integers (x * x wraps as the pow's
; repeated product does). An exponent that broadcasts x to a larger shape
; keeps its pow (the third output: the twos add an axis).
; dims: N=5
; scans_after: 0
; fires: pow-twos
(program eq_pow_twos
  (input X (f64 N 3))
  (input K (i64 N 3))
  (let Y (where (gt X 0.5) inf (where (lt X -0.5) nan (mul X 1e200))))
  (let Z (where (gt X 0.0) (mul X 1e-200) (mul X 1e150)))
  (let TWOS (tensor (i32 1 1) 2))
  (output (add (pow Y TWOS) (pow Z TWOS)) (pow (mul K 3037000499) TWOS) (pow (index Y 0) (tensor (i32 2 3) 2 2 2 2 2 2))))
