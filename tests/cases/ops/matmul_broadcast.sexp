; a 2-D operand broadcasts over the batch; batch axes broadcast together.
(program matmul_broadcast
  (input A (f64 2 3 4))
  (input B (f64 4 5))
  (input C (f64 2 1 3 4))
  (input D (f64 5 4 2))
  (output (matmul A B) (matmul (transpose B) (transpose A 0 2 1)) (matmul C D)))
