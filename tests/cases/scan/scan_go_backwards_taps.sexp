; taps (-1 0) backwards: each tap slice (X[0:T-1] and X[1:T]) is reversed, so
; step t reads X[T-2-t] and X[T-1-t].
; dims: T=6 N=2
(program scan_go_backwards_taps
  (input X (f64 T N))
  (let Y (scan
    (sequences (X (taps -1 0)))
    (go_backwards)
    (fn (x_m1 x_0) (sub x_0 (mul 2.0 x_m1)))))
  (output Y))
