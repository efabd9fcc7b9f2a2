; A fold over a list of lists is not supported yet (phase 2): a located
; error at the list (line 6), which suggests flatten.
; args: fmt
(program p
  (input L (list (list (f64 2))))
  (output (foldl (fn (acc x) acc) (zeros (f64 2)) L)))
