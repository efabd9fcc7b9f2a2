; scale: X=3.0
(program reduce_prod
  (input X (f64 3 4))
  (output (prod X) (prod X 0) (prod X -1)))
