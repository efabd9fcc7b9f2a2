(program matmul_2d
  (input A (f64 3 4))
  (input B (f64 4 5))
  (output (matmul A B)))
