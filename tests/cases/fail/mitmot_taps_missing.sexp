; a mitmot entry needs (in_taps T ...) and (out_taps S ...), in that order.
; args: fmt
(program p
  (input G (f64 6 2))
  (let R (scan
    (outputs_info (mitmot G (out_taps 1) (in_taps 0 1)))
    (n_steps 5)
    (fn (g0 g1) (add g0 g1))))
  (output R))
