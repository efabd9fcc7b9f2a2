; a mitmot keeps its whole tape: (keep K) is refused.
; args: fmt
(program p
  (input G (f64 6 2))
  (let R (scan
    (outputs_info (mitmot G (in_taps 0 1) (out_taps 1) (keep 1)))
    (n_steps 5)
    (fn (g0 g1) (add g0 g1))))
  (output R))
