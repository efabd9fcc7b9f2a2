; i64 operands are computed in f64, as numpy.linalg does.
(program linalg_i64
  (input K (i64 3 3))
  (input J (i64 3))
  (let A (add K (tensor (i64 3 3) 9 0 0 0 9 0 0 0 9)))
  (let (sign logdet) (slogdet A))
  (output (solve A J) (inv A) (det A) sign logdet (solve_triangular A J true)))
