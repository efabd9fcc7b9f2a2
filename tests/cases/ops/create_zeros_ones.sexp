; dims: N=2 M=3
(program create_zeros_ones
  (input X (f64 N M))
  (output (zeros (f64 2 3)) (ones (i64 3)) (ones (f32 2 2)) (zeros (bool 2)) (add X (ones (f64 N M))) (zeros (f64))))
