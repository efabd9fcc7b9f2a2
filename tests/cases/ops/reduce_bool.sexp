; summing bools counts them (i64).
(program reduce_bool
  (input B (bool 3 4))
  (output (sum B) (sum B 0)))
