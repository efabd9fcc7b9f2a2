; stack takes a list of tensors; L holds lists: a type error at the
; stack (line 5), which suggests flatten.
; args: fmt
(program p
  (input L (list (list (f64 2))))
  (output (stack L)))
