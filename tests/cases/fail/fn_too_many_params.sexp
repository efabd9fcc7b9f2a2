; taps (-2 -1) and a non-sequence need 3 parameters.
; args: fmt
(program p
  (input I (f64 2 3))
  (input w (f64 3))
  (let A (scan
    (outputs_info (mitsot I (taps -2 -1)))
    (non_sequences w)
    (n_steps 4)
    (fn (a b c d) (add a b))))
  (output A))
