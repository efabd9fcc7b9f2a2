; n_steps as a literal, a state and no sequences.
; dims: N=3
(program scan_n_steps_no_sequences
  (input a0 (f64 N))
  (let A (scan
    (outputs_info (sitsot a0))
    (n_steps 5)
    (fn (a) (add (mul a 0.5) 1.0))))
  (output A))
