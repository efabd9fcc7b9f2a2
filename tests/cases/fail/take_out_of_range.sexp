; take with an index past the axis (here from the data, known only at run
; time): a located run-time error, optimized as written.
; args: run --gen --dim N=3
(program p
  (input X (f64 N 2))
  (input I (i64 4))
  (let J (add (mul I 0) (tensor (i64 4) 0 1 -3 3)))
  (output (sum (take X J))))
