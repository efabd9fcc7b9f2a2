; args: run --no-opt
; keys are not reduced
(program p
  (output (sum (split (key 1) 3))))
