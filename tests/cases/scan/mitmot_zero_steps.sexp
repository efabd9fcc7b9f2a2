; A mitmot loop without steps gives its tape unchanged; an f32 tape takes
; a weak literal in its body's result.
; dims: T=0 N=3
(program mitmot_zero_steps
  (input X (f64 T N))
  (input G (f32 4 N))
  (input H (f32 4 N))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot G (in_taps 0 1) (out_taps 1)))
    (fn (x g0 g1) (add g1 (cast f32 (mul x 2.0))))))
  (let Q (scan
    (outputs_info (mitmot H (in_taps 0 1) (out_taps 1)))
    (n_steps 3)
    (fn (g0 g1) (add (mul g1 0.5) 1.0))))
  (output R Q))
