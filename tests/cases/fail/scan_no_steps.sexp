; a scan with neither sequences nor n_steps.
; args: fmt
(program p
  (input a0 (f64 3))
  (let A (scan
    (outputs_info (sitsot a0))
    (fn (a) (add a 1.0))))
  (output A))
