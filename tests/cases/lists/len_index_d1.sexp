; A list of 4 vectors (depth 1): its length, elements by positive and
; negative index, an element in a tensor op, and the list itself as an
; output.
(program len_index_d1
  (input L (list (f64 3)))
  (output (len L) (index L 0) (index L -1) (mul (index L 2) 2.0) L))
