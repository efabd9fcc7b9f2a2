; a 0-D literal index outside a known axis is a type error.
; args: fmt
(program p
  (input X (f64 3 2))
  (output (take X 2 1)))
