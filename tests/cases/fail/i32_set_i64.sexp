; Writing i64 data into an i32 array would promote it (PyTensor refuses
; the downcast, as for a float into an i64 array).
; args: fmt
(program p
  (input X (i32 3 2))
  (input J (i64 2))
  (output (set_index X J 0)))
