; grad through a map over a list of lists whose elements depend on the
; gradient's target (here R, a map over L's sequences, reads W): the
; backward loop would take a list of lists as its cotangent; refused at
; the grad (line 11) instead of the panic it was.
; args: run --gen --lengths L=2,0,1
(program p
  (input L (list (list (f64 2))))
  (input W (f64 2))
  (let R (map (fn (s) (map (fn (x) (tanh (mul x W))) s)) L))
  (let cost (sum (stack (map (fn (s) (sum (stack s))) R))))
  (output cost (grad cost W)))
