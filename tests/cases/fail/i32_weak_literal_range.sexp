; NumPy 2: int32 array + 3000000000 raises OverflowError ("Python
; integer 3000000000 out of bounds for int32").
; args: fmt
(program p
  (input K (i32 3))
  (output (add K 3000000000)))
