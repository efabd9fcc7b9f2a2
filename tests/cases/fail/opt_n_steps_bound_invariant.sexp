; issue 11: n_steps 7 over 4 rows, and a body that does not read the
; sequence: the optimized program (the value repeated 7 times) does not
; hold the loop any more.
; args: run --gen --dim T=4
(program p
  (input X (f64 T 2))
  (input Y (f64 2))
  (let A (scan
    (sequences X)
    (n_steps 7)
    (fn (x) (mul Y 2.0))))
  (output A))
