; foldl's fn takes (acc x).
; args: fmt
(program p
  (input X (f64 5 3))
  (input a0 (f64 3))
  (output (foldl (fn (x) (add x 1.0)) a0 X)))
