; outer takes two vectors (numpy.outer would flatten; eqscan asks for the
; reshape to be written).
; args: fmt
(program p
  (input X (f64 3 2))
  (input y (f64 3))
  (output (outer X y)))
