; The gradient of trigamma would need polygamma(2, x), which eqscan does
; not have: one located line, not a wrong number.
; args: run --gen
(program p
  (input x (f64 3))
  (output (grad (sum (trigamma (add 2.0 x))) x)))
