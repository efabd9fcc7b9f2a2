; args: run --no-opt
; a key is not a number: adding to one is a type error
(program p
  (let k (key 1))
  (output (add k 1)))
