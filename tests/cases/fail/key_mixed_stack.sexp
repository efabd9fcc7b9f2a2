; args: run --no-opt
; keys and numbers are not stacked together
(program p
  (output (stack (key 1) 2)))
