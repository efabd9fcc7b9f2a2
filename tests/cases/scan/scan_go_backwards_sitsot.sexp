; a running state from the end of X; outputs in iteration order.
; dims: T=6 N=3
(program scan_go_backwards_sitsot
  (input X (f64 T N))
  (input a0 (f64 N))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (go_backwards)
    (fn (x a) (add (mul a 0.5) x))))
  (output A))
