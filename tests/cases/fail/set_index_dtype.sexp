; writing a float into an integer array would need a cast (PyTensor
; refuses the downcast; NumPy would truncate silently).
; args: fmt
(program p
  (input K (i64 3 2))
  (output (set_index K 2.5 0)))
