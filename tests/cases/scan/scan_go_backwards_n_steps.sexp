; go_backwards with n_steps smaller than the sequence. As pytensor.scan does
; (scan/basic.py: each tap slice is reversed, then all are cut to [:n_steps]),
; the steps read X[T-1], X[T-2], ..., X[T-n_steps].
; dims: T=6 N=3
(program scan_go_backwards_n_steps
  (input X (f64 T N))
  (input a0 (f64 N))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (n_steps 4)
    (go_backwards)
    (fn (x a) (add (mul a 0.5) x))))
  (output A))
