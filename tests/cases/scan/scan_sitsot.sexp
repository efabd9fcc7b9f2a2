; dims: T=6 N=3
(program scan_sitsot
  (input X (f64 T N))
  (input a0 (f64 N))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (fn (x a) (add (mul a 0.9) (mul x x)))))
  (output A))
