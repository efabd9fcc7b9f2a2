; dims: T=5 N=3
(program scan_scalar_state
  (input X (f64 T N))
  (input s0 (f64))
  (let S (scan
    (sequences X)
    (outputs_info (sitsot s0))
    (fn (x s) (add (mul s 0.5) (sum x)))))
  (output S))
