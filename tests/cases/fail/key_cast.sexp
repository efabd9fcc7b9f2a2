; args: run --no-opt
; a number is not cast to a key: keys are made with (key SEED)
(program p
  (output (cast key 5)))
