; must refuse: `(until ...)` is not the last element of `outputs` (line 8,
; the `until` form): the condition must come after every output.
; args: fmt
(program p
  (input X (f64 5 3))
  (let (A B) (scan
    (sequences X)
    (fn (x) (outputs (mul x 2.0) (until (gt (sum x) 0.0)) (sum x)))))
  (output A B))
