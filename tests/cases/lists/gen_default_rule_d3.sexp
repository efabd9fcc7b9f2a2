; gen:
; A generated depth-3 list with the default lengths (3 outermost; the
; j-th list of each deeper depth holds (j + 2) % 4).
(program gen_default_rule_d3
  (input L (list (list (list (f64 2)))))
  (let f1 (flatten L))
  (output L f1 (len f1)))
