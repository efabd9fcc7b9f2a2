; slogdet used as an expression of one result: bind both.
; args: fmt
(program p
  (input A (f64 3 3))
  (output (slogdet A)))
