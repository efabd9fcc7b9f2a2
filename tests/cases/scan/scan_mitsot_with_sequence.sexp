; dims: T=6 N=3
(program scan_mitsot_with_sequence
  (input X (f64 T N))
  (input I (f64 2 N))
  (let Xs (scan
    (sequences X)
    (outputs_info (mitsot I (taps -2 -1)))
    (fn (x x_m2 x_m1) (tanh (add x (mul x_m1 (add x_m2 1.0)))))))
  (output Xs))
