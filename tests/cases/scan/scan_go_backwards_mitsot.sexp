; go_backwards with a mitsot state and a sequence: the state recurs in
; iteration order, the sequence is read from its end.
; dims: T=5 N=2
(program scan_go_backwards_mitsot
  (input X (f64 T N))
  (input I (f64 2 N))
  (let M (scan
    (sequences X)
    (outputs_info (mitsot I (taps -2 -1)))
    (go_backwards)
    (fn (x m2 m1) (add x (sub m1 (mul 0.5 m2))))))
  (output M))
