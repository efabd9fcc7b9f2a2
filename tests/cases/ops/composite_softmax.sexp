; softmax along the last axis.
; scale: X=4.0
(program composite_softmax
  (input X (f64 3 5))
  (let E (exp (sub X (expand_dims (max X -1) -1))))
  (output (div E (expand_dims (sum E -1) -1))))
