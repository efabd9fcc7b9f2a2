; an increment past a symbolic size: a run-time error.
; args: run --gen --dim N=3
(program p
  (input X (f64 N 2))
  (input g (f64 2))
  (output (inc_index X g (sub 0 (add N 1)))))
