; exp takes a tensor; L is a list: a type error at the exp (line 5).
; args: fmt
(program p
  (input L (list (f64 3)))
  (output (exp L)))
