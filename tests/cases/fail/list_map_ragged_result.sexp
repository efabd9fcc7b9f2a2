; A map over a list whose fn returns a filter's result (a length known
; only at run time) would give a list one depth deeper (SPEC), which
; comes with phase 2: a located error at the fn (line 6).
; args: fmt
(program p
  (input L (list (f64 4)))
  (output (map (fn (x) (filter (fn (e) (gt e 0.0)) x)) L)))
