; Found by tests/fuzz.rs (issue 11, point 6): an index out of range while
; the optimized program runs was reported at a line and column of the
; optimized program's text (here 9:16, where --no-opt says 14:17). The
; error must name the user's (index w i) on line 14, as --no-opt does.
; args: run --gen --dim K=2
; (fixed in issue 11: an optimized run that fails is told as the written one)
(program p
  (input W (f64 3))
  (input v (i64 K))
  (let W0 W)
  (let Y (scan
    (sequences v)
    (non_sequences W W0)
    (fn (i w b) (index w i))))
  (output Y))
