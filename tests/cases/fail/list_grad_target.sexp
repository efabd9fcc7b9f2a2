; Gradients with respect to a list come in a later phase: a located
; error at the target (line 6).
; args: fmt
(program p
  (input L (list (f64 2)))
  (output (grad (sum (index L 0)) L)))
