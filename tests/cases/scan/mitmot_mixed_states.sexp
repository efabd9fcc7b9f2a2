; A mitmot between a sitsot and a nitsot, over two sequences (one with
; taps -1 0): the body's results are the sitsot's step, the mitmot's one
; out tap and the nitsot's step, in that order; the mitmot reads its tape
; before the step writes it, and the other outputs read the tape's slots.
; dims: T=6 N=2
(program mitmot_mixed_states
  (input X (f64 T N))
  (input Y (f64 T))
  (input h0 (f64 N))
  (input B (f64 T N))
  (let (H G Z) (scan
    (sequences (X (taps -1 0)) Y)
    (outputs_info (sitsot h0) (mitmot B (in_taps 0 1) (out_taps 1)) (nitsot))
    (fn (x_prev x y h g0 g1)
      (outputs
        (tanh (add (mul 0.5 h) (sub x x_prev)))
        (add g1 (mul (mul y g0) h))
        (sum (mul g0 g1))))))
  (output H G Z))
