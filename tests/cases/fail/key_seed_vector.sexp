; args: run --no-opt
; a seed is an i64 scalar, not a vector
(program p
  (output (key (arange 3))))
