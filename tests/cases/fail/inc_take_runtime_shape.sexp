; the increment's rows must match the indices' count, known here only at
; run time: a located run-time error.
; args: run --gen --dim N=4 --dim M=3
(program p
  (input X (f64 5 3))
  (input G (f64 N 3))
  (input I (i64 M))
  (output (inc_take X G (mul I 0))))
