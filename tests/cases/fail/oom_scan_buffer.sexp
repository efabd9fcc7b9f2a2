; args: run --no-opt --gen --dim T=100000 --max-memory 1M
; The loop keeps 100000 steps of 3 f64 (2.4 MB) under a 1 MiB budget.
(program p
  (input a0 (f64 3))
  (let A (scan
    (outputs_info (sitsot a0))
    (n_steps T)
    (fn (a) (add (mul a 0.5) 1.0))))
  (output A))
