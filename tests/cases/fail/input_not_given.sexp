; no --input for X and no --gen.
; args: run --no-opt
(program p
  (input X (f64 3 4))
  (output (sum X)))
