; A slogdet result bound to `_` makes no node (the printer writes `_` for
; a result the program does not read); each binding alone computes its
; result.
(program linalg_slogdet_discard
  (input X (f64 3 3))
  (let A (sub X (tensor (f64 3 3) 2.0 0.0 0.0 0.0 2.0 0.0 0.0 0.0 2.0)))
  (let (_ logdet) (slogdet A))
  (let (sign _) (slogdet A))
  (output logdet sign))
