; argmax over an empty axis has no answer (NumPy raises): a located
; run-time error, in both modes.
; args: run --gen --dim N=0
(program p
  (input X (f64 N))
  (output (argmax X)))
