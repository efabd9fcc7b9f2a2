; clip (numpy.clip): ordinary bounds, bounds broadcast from a column and
; a row, NaN in X (stays NaN), a lower bound above the upper one (gives
; the upper), infinite and extreme bounds, an integer X with float bounds
; (promoted to f64, as NumPy 2 promotes weak scalars), an integer X with
; integer bounds (stays i64) and a bool X.
(program clip_bounds
  (input X (f64 3 4))
  (input K (i64 3 4))
  (input B (bool 4))
  (input L (f64 3 1))
  (let E (tensor (f64 6) nan -inf inf 1e308 -1e308 0.25))
  (output (clip X -0.25 0.3) (clip X L 0.4) (clip X (index X 0) (index X 2))
          (clip E -1.0 1.0) (clip E 1.0 -1.0) (clip E -inf 1e308) (clip X 0.1 nan)
          (clip K 0.5 2.5) (clip K -2 3) (clip B false true) (clip (mul X 1e308) -1e300 1e300)))
