; args: run --no-opt
; uniform draws floats
(program p
  (output (uniform (key 1) (i64 3))))
