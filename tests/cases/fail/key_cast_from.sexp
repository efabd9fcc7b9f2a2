; args: run --no-opt
; a key is not cast to a number
(program p
  (output (cast i64 (key 5))))
