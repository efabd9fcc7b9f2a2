(program create_tensor
  (input X (f64 2 3))
  (output (tensor (f64 2 3) 1.0 2.0 3.0 4.0 5.0 6.0) (tensor (i64 3) 1 -2 3) (tensor (bool 2) true false) (add X (tensor (f64 3) 1.0 -1.0 0.5)) (tensor (f64) 2.5)))
