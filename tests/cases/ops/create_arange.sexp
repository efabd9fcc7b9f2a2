; dims: N=4
(program create_arange
  (input X (f64 N))
  (output (arange 5) (arange N) (mul (arange N) X) (add (arange N) 1)))
