; must refuse: `until` inside a combinator (`map`, line 7, the `until`
; form): while loops are written with `scan` only.
; args: fmt
(program p
  (input X (f64 5 3))
  (output (map
    (fn (x) (outputs (mul x 2.0) (until (gt (sum x) 0.0))))
    X)))
