; out tap -1 lies below the lowest in tap 0: step 0 would write slot -1.
; args: fmt
(program p
  (input G (f64 6 2))
  (let R (scan
    (outputs_info (mitmot G (in_taps 0 1) (out_taps -1)))
    (n_steps 4)
    (fn (g0 g1) (add g0 g1))))
  (output R))
