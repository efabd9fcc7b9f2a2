; filterall's fn takes one parameter, each element (line 5, the
; parameter list `(a b)`).
; args: fmt
(program p (input X (f64 4 3))
  (output (filterall (fn (a b) (gt a b)) X)))
