; take's indices must be integers.
; args: fmt
(program p
  (input X (f64 3 2))
  (output (take X (tensor (f64 2) 0.0 1.0))))
