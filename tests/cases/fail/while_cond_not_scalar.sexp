; must refuse: the `until` condition (gt x 0.0) is a vector of 3, not a
; scalar (line 8, the `until` form or its condition).
; args: fmt
(program p
  (input X (f64 5 3))
  (let Y (scan
    (sequences X)
    (fn (x) (outputs (mul x 2.0) (until (gt x 0.0))))))
  (output Y))
