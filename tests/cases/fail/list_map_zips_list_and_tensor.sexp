; map over a list zipped with a tensor: their lengths must agree at run
; time, which comes with phase 2; refused at the list (line 7) for now.
; args: fmt
(program p
  (input L (list (f64 2)))
  (input X (f64 3 2))
  (output (map (fn (a b) (add a b)) L X)))
