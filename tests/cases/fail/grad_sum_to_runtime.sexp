; X's symbolic size is neither 1 nor G's: a run-time error.
; args: run --no-opt --gen --dim N=3
(program p
  (input G (f64 2 5))
  (input X (f64 N 1))
  (output (sum_to G X)))
