; Loops over a list holding the ends of the f64 range: map overflows to
; inf as NumPy does, scanl's running sum overflows then stays, filter
; keeps the elements whose max is above 1e300, and a map over a depth-3
; list flattened twice (i64 pairs) keeps its integers exact.
(program loops_extreme
  (input L (list (f64 3)))
  (input D (list (list (list (i64 2)))))
  (output (map (fn (x) (mul x 10.0)) L)
    (scanl (fn (acc x) (add acc x)) (zeros (f64 3)) L)
    (filter (fn (x) (gt (max x) 1e300)) L)
    (map (fn (x) (mul x 3)) (flatten (flatten D)))))
