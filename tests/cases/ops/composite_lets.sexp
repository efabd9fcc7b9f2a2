(program composite_lets
  (input A (f64 3 4))
  (input v (f64 4))
  (let h (tanh (add (dot A v) 0.5)))
  (let g (mul h h))
  (output (sum (mul g (dot A v))) h))
