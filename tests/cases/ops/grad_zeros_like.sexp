; dims: T=5
(program grad_zeros_like
  (input X (f64 T 3))
  (input Y (f32 2))
  (input K (i64 3 2))
  (input B (bool 4))
  (output (zeros_like X) (zeros_like Y) (zeros_like K) (zeros_like B) (zeros_like 2.5) (add (zeros_like X) X)))
