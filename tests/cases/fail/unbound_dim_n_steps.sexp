; T used only as n_steps.
; args: run --no-opt --gen
(program p
  (input a0 (f64 3))
  (let A (scan
    (outputs_info (sitsot a0))
    (n_steps T)
    (fn (a) (add a 1.0))))
  (output A))
