; map zips a list of 2 elements (--lengths L=2) with the 3 rows of a
; tensor: lengths that differ are a run-time error at the map (line 7),
; found before the first step, optimized or not.
; args: run --gen --lengths L=2
(program p
  (input L (list (f64 2)))
  (input X (f64 3 2))
  (output (map (fn (a b) (add a b)) L X)))
