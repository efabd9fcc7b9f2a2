; det of a vector (fewer than 2 axes): a type error at the op.
; args: fmt
(program p
  (input v (f64 3))
  (output (det v)))
