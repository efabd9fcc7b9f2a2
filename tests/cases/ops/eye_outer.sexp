; eye (numpy.eye): square, wide, tall, symbolic, i64 and bool; outer
; (numpy.outer): f64, i64 and bool vectors, vectors of different
; lengths, an empty one, and values near the f64 limit (inf where the
; product overflows, as NumPy).
; dims: N=3
(program eye_outer
  (input X (f64 3 4))
  (input K (i64 5))
  (input B (bool 4))
  (output (eye (f64 3 3)) (eye (f64 3 5)) (eye (f64 4 2)) (eye (i64 N N)) (eye (bool 2 3))
          (eye (f64 0 3))
          (outer (index X 0) (index X 1)) (outer (index X 2) K) (outer K K) (outer B B)
          (outer (index X 0) (tensor (f64 0)))
          (outer (tensor (f64 2) 1e200 -1e200) (tensor (f64 3) 1e200 1e-200 0.0))))
