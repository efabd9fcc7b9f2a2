; A map whose fn returns a list (here each sequence's elements doubled,
; a map inside the map) would give a list of lists built step by step,
; which comes in a later phase: a located error at the fn (line 6).
; args: fmt
(program p
  (input L (list (list (f64 2))))
  (output (map (fn (s) (map (fn (x) (mul x 2.0)) s)) L)))
