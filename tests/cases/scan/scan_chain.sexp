; the second scan runs over the first one's output; results used afterwards.
; dims: T=6 N=3
(program scan_chain
  (input X (f64 T N))
  (input a0 (f64 N))
  (let Y (scan
    (sequences X)
    (fn (x) (mul x x))))
  (let A (scan
    (sequences (Y (taps -1 0)))
    (outputs_info (sitsot a0))
    (fn (y_m1 y a) (add a (sub y y_m1)))))
  (output (sum A 0) (index A -1) (mean Y)))
