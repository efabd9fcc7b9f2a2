; forall's fn must give one tensor of one shape per innermost tensor; a
; filter's result has a length known only at run time (line 7, the fn).
; args: run --gen --lengths L=2,0,1
(program p
  (input L (list (list (f64 3))))
  (output
    (forall (fn (x) (filter (fn (e) (gt e 0.0)) x)) L)))
