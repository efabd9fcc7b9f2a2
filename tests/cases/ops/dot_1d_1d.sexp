; dims: N=5
(program dot_1d_1d
  (input a (f64 N))
  (input b (f64 N))
  (output (dot a b)))
