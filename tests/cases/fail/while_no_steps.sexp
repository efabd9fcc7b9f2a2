; must refuse: a while loop with neither `n_steps` nor sequences (line 7,
; the scan): `until` does not make a bound unnecessary, n_steps is the
; most steps the loop may run.
; args: fmt
(program p
  (input a0 (f64 3))
  (let A (scan
    (outputs_info (sitsot a0))
    (fn (a)
      (let a1 (add a 1.0))
      (outputs a1 (until (gt (sum a1) 10.0))))))
  (output A))
