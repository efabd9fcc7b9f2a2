; fn uses w and c, bound outside and not listed in non_sequences.
; dims: T=5 N=3
(program scan_closure
  (input X (f64 T N))
  (input w (f64 N))
  (let c (mul w 2.0))
  (let Y (scan
    (sequences X)
    (fn (x) (add (mul x c) w))))
  (output Y))
