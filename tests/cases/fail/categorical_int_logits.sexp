; args: run --no-opt
; categorical draws from float logits
(program p
  (output (categorical (key 1) (arange 3))))
