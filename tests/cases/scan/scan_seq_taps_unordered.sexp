; taps (1 -1 0): parameters come in the order the taps are written.
; dims: T=6 N=2
(program scan_seq_taps_unordered
  (input X (f64 T N))
  (let Y (scan
    (sequences (X (taps 1 -1 0)))
    (fn (x_p1 x_m1 x_0) (add (sub x_p1 (mul 2.0 x_m1)) (mul 3.0 x_0)))))
  (output Y))
