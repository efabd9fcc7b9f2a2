; compress_innermost (what filterall on a list of lists lowers to) takes
; one mask entry per innermost tensor: the list holds 2 + 0 + 1 = 3
; (--lengths L=3/2,0,1), the mask 4, a run-time error at the op (line 8),
; optimized or not.
; args: run --gen --lengths L=3/2,0,1
(program p
  (input L (list (list (f64 2))))
  (output (compress_innermost (tensor (bool 4) true false true true) L)))
