(program matmul_batched
  (input A (f64 2 3 4))
  (input B (f64 2 4 5))
  (output (matmul A B)))
