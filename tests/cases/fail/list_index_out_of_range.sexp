; The list has 3 elements (--lengths L=3): index 3 is out of range, a
; run-time error at the index (line 6), optimized or not.
; args: run --gen --lengths L=3
(program p
  (input L (list (f64 2)))
  (output (index L 3)))
