; issue 11: N and M differ once bound; the optimized program folds the
; lets, so its add is on another line. The error names the user's add.
; args: run --gen --dim N=3 --dim M=4
(program p
  (input X (f64 N))
  (input Y (f64 M))
  (let Z (mul (exp X) 2.0))
  (output (add (mul Z 1.0) (add Y 0.0))))
