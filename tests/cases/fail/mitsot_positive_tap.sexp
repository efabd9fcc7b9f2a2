; args: fmt
(program p
  (input I (f64 2 3))
  (let A (scan
    (outputs_info (mitsot I (taps -1 1)))
    (n_steps 4)
    (fn (a b) (add a b))))
  (output A))
