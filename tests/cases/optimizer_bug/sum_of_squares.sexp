; Run with tests/cases/optimizer_bug/sum_is_element_100.rules, which
; rewrites the sum into an index past the end of a 6-element array.
(program sum_of_squares
  (input X (f64 N 2))
  (output (sum (mul X X))))
