; An empty list of f32 vectors: length 0, stacked to shape (0, 3), and
; written back.
(program empty_outer
  (input L (list (f32 3)))
  (output (len L) (stack L) L))
