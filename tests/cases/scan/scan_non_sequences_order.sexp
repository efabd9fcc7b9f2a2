; dims: T=4 N=3
(program scan_non_sequences_order
  (input X (f64 T N))
  (input p (f64 N))
  (input q (f64 N))
  (input r (f64))
  (let Y (scan
    (sequences X)
    (non_sequences p q r)
    (fn (x pp qq rr) (add (mul x pp) (sub qq rr)))))
  (output Y))
