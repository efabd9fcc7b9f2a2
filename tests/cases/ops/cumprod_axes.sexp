; scale: X=3.0
(program cumprod_axes
  (input X (f64 2 3 4))
  (output (cumprod X) (cumprod X 2) (cumprod X -2)))
