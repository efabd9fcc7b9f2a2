; issue 11: an index read from an input (k = 5 by the data rule) is past
; the end: known only when the program runs. The optimized program fails
; on another line; the error reported is the written program's.
; args: run --gen --dim N=3
(program p
  (input X (f64 N 2))
  (input k (i64))
  (let Z (mul (exp X) 1.0))
  (output (index Z k)))
