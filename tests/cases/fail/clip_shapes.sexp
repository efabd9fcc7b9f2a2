; the bounds must broadcast with X.
; args: fmt
(program p
  (input X (f64 3 2))
  (input lo (f64 3))
  (output (clip X lo 1.0)))
