; args: run --no-opt
; a shared variable is not a key either
(program p
  (shared k (key))
  (output (uniform k (f64 2))))
