; grad through filter of a list of lists: a dropped element's cotangent
; would need its lengths, which the kept list no longer has; refused,
; naming compress, at the grad (line 10).
; args: run --gen --lengths L=2,0,1
(program p
  (input L (list (list (f64 2))))
  (input w (f64 2))
  (let K (filter (fn (s) (gt (len s) 0)) (forall (fn (x) (mul x w)) L)))
  (let c (sum (stack (flatten K))))
  (output c (grad c w)))
