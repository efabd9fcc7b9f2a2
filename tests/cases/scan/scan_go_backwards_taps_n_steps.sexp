; taps (-1 0) backwards with n_steps 3 (reverse each tap slice, then cut to
; [:3]): step t reads X[T-2-t] and X[T-1-t], t < 3.
; dims: T=6 N=2
(program scan_go_backwards_taps_n_steps
  (input X (f64 T N))
  (let Y (scan
    (sequences (X (taps -1 0)))
    (n_steps 3)
    (go_backwards)
    (fn (x_m1 x_0) (sub x_0 (mul 2.0 x_m1)))))
  (output Y))
