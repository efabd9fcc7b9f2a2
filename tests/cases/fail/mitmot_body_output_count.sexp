; a mitmot with two out taps takes two body results; fn returns one.
; args: fmt
(program p
  (input G (f64 8 2))
  (let R (scan
    (outputs_info (mitmot G (in_taps 0 3 1) (out_taps 3 1)))
    (n_steps 5)
    (fn (g0 g3 g1) (add g0 g3))))
  (output R))
