; state inits computed by expressions.
; dims: T=5 N=3
(program scan_init_expression
  (input X (f64 T N))
  (let (A M) (scan
    (sequences X)
    (outputs_info (sitsot (index X 0)) (mitsot (stack (index X 1) (index X 2)) (taps -2 -1)))
    (fn (x a m2 m1) (outputs (add a x) (sub m1 (mul 0.5 m2))))))
  (output A M))
