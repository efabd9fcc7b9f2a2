; a slot of the tape is (f64 2); fn writes an (f64 3) into it.
; args: fmt
(program p
  (input G (f64 6 2))
  (input v (f64 3))
  (let R (scan
    (outputs_info (mitmot G (in_taps 0 1) (out_taps 1)))
    (non_sequences v)
    (n_steps 5)
    (fn (g0 g1 w) w)))
  (output R))
