; go_backwards: step t reads X[T-1-t]; outputs are in iteration order.
; dims: T=5 N=3
(program scan_go_backwards_nitsot
  (input X (f64 T N))
  (let Y (scan
    (sequences X)
    (go_backwards)
    (fn (x) (mul (exp x) 3.0))))
  (output Y))
