; the slice of a symbolic size is 2 rows at run time, the increment 3.
; args: run --gen --dim N=4
(program p
  (input X (f64 N 2))
  (input g (f64 3 2))
  (output (inc_slice X g none none 2)))
