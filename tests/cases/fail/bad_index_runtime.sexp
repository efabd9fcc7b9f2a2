; an index past a symbolic size: a run-time error.
; args: run --no-opt --gen --dim N=3
(program p
  (input X (f64 N 2))
  (output (index X (add N 1))))
