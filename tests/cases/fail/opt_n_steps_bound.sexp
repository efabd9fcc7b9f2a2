; issue 11: n_steps 7 over a sequence of T = 4 rows; the optimized program
; (a slice of X summed) runs, the written one must not: both fail.
; args: run --gen --dim T=4
(program p
  (input X (f64 T 2))
  (input a0 (f64 2))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (n_steps 7)
    (fn (x a) (add a x))))
  (output (index A -1)))
