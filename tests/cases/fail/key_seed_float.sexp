; args: run --no-opt
; a seed is an i64 scalar
(program p
  (output (uniform (key 1.5) (f64 2))))
