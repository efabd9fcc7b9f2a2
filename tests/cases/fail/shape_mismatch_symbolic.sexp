; the sizes differ only once N and M are bound: a run-time error.
; args: run --no-opt --gen --dim N=3 --dim M=4
(program p
  (input X (f64 N))
  (input Y (f64 M))
  (output (add X Y)))
