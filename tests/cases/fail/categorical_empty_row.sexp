; args: run --no-opt --dim N=0
; a row of no logits has nothing to draw (a size known only at run time)
(program p
  (output (categorical (key 1) (zeros (f64 3 N)))))
