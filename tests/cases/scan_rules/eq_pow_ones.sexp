; x ** ONES is x when the ones are an array x's type absorbs: PyTensor's
; gradient of x ** 2 writes 2 * x ** (2 - 1) with the exponent a (1, 1)
; array of i64 ones (the gradient's broadcast literals); the pow goes, with
; infinities and NaN in the data (x ** 1 is x for each of them). An
; exponent that broadcasts x to a larger shape keeps its pow (the second
; output: the ones add an axis).
; dims: N=5
; scans_after: 0
; fires: pow-ones
(program eq_pow_ones
  (input X (f64 N 3))
  (let Y (where (gt X 0.5) inf (where (lt X -0.5) nan X)))
  (let ONES (sub (fill (i64 1 1) 2) (fill (i64 1 1) 1)))
  (output (mul (pow Y ONES) 2.0) (pow (index Y 0) (fill (i64 2 3) 1))))
