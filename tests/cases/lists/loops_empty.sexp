; Loops over an empty list of vectors: map, scanl and filter give empty
; lists, stacked to shape (0, 2).
(program loops_empty
  (input L (list (f64 2)))
  (let m (map (fn (x) (mul x 2.0)) L))
  (output m (scanl (fn (acc x) (add acc x)) (zeros (f64 2)) L)
    (filter (fn (x) (gt (sum x) 0.0)) L) (stack m) (len m)))
