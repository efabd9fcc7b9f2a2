; issue 11: K is never bound; the optimized program moves (zeros ...) to
; another column of its text. The error names the user's line and column.
; args: run --gen
(program p
  (input a0 (f64 3))
  (let Z (zeros (f64 K 3)))
  (output (add a0 (mul (sum Z 0) 0.0))))
