; Arithmetic on integer literals is exact (Python ints under NEP 50):
; int32_array + 100000 * 100000 is 10^10, out of bounds for int32
; (NumPy 2 raises OverflowError), not a wrapped number.
; args: fmt
(program p
  (input K (i32 3))
  (output (add K (mul 100000 100000))))
