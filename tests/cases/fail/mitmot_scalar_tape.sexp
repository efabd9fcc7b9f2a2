; a mitmot's tape needs a leading axis of slots.
; args: fmt
(program p
  (input g (f64))
  (let R (scan
    (outputs_info (mitmot g (in_taps 0 1) (out_taps 1)))
    (n_steps 5)
    (fn (g0 g1) (add g0 g1))))
  (output R))
