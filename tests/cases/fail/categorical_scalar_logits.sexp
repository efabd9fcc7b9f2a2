; args: run --no-opt
; categorical needs a row of logits
(program p
  (output (categorical (key 1) 0.5)))
