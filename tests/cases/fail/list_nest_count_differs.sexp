; nest puts X's rows in L's nesting: L holds 3 vectors (lengths 2, 0, 1),
; X has 4 rows, a run-time error at the nest (line 7).
; args: run --gen --lengths L=2,0,1
(program p
  (input L (list (list (f64 2))))
  (input X (f64 4 2))
  (output (nest X L)))
