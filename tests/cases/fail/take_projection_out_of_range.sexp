; a token past the embedding table, projected: the optimizer gathers the
; projected table instead (matmul-take-rows), and the run still fails at
; the written take, located, as the program as written does.
; args: run --gen --dim T=6 --dim V=3
(program p
  (input tokens (i64 T))
  (input E (f64 V 2))
  (input W (f64 2 5))
  (let J (add (mul tokens 0) (tensor (i64 6) 0 1 2 1 3 0)))
  (output (sum (matmul (take E J) W))))
