; dims: T=5
(program grad_flip
  (input X (f64 3 4))
  (input Y (f64 2 3 4))
  (input V (f64 T))
  (input K (i64 3 4))
  (input E (f64 0 2))
  (let e (exp X))
  (output (flip X) (flip X 1) (flip X -1) (flip Y 1) (flip (flip Y 2) -1) (flip V) (flip K 1) (flip E)
          (add (flip X 0) X) (sum (flip (transpose X) 1) 0)
          (add e (flip e 1))))
