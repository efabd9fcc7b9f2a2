; args: run --no-opt
; a draw takes a key, not a seed
(program p
  (output (normal 42 (f64 3))))
