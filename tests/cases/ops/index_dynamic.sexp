; an index can be any i64 scalar expression, negative ones count from the end.
; dims: N=4
(program index_dynamic
  (input X (f64 N 3))
  (output (index X (sub N 1)) (index X (neg N)) (index X (sub 2 N))))
