; issue 11: n_steps read from an input (n = 5 by the data rule) over a
; sequence of 3 rows: known only when the program runs.
; args: run --gen --dim T=3
(program p
  (input X (f64 T 2))
  (input n (i64))
  (input a0 (f64 2))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (n_steps n)
    (fn (x a) (add a (mul x 2.0)))))
  (output (index A -1)))
