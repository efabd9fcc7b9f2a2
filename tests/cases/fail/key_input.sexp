; args: run --no-opt
; keys are made in the program, not read
(program p
  (input k (key))
  (output (uniform k (f64 2))))
