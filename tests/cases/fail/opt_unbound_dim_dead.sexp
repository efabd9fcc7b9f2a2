; issue 11: T is never bound; the loop that needs it is read by no output
; (the optimized program drops it). The program as written cannot be
; checked without T, so both runs fail at n_steps.
; args: run --gen
(program p
  (input a0 (f64 3))
  (let A (scan
    (outputs_info (sitsot a0))
    (n_steps T)
    (fn (a) (mul a 2.0))))
  (output a0))
