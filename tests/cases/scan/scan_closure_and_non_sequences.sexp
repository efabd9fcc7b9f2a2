; dims: T=5 N=3
(program scan_closure_and_non_sequences
  (input X (f64 T N))
  (input w (f64 N))
  (input b (f64 N))
  (input a0 (f64 N))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (non_sequences b)
    (fn (x a bb) (tanh (add (mul a w) (add (mul x bb) 0.1))))))
  (output A))
