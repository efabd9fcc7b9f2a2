; forall applies its fn at the innermost depth of a list; its operand
; here is a tensor (line 6, the operand): map its rows instead.
; args: run --gen
(program p
  (input X (f64 3 2))
  (output (forall (fn (x) (exp x)) X)))
