; take of (arange 2) along an axis of symbolic length 1 fails (index 1 out
; of range); the optimizer must not turn it into a slice, which would
; not: the optimized run fails at the same place as the written one.
; args: run --gen --dim N=1
(program p
  (input X (f64 N 3))
  (output (take X (arange 2))))
