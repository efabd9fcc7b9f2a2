; Elements at the ends of the f64 range (1e308, the smallest subnormal,
; inf, -0.0, nan) go through the list ops bit for bit; tensor ops on
; them overflow as NumPy's do.
(program extreme_magnitudes
  (input L (list (f64 3)))
  (input W (f64 3 3))
  (output (stack L) (mul (index L 0) 10.0) (dot W (index L 0)) (index L 1) L))
