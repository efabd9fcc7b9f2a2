; matmul of two matrices.
; wrt: a b
(program op_matmul_mm
  (input C (f64 3 2))
  (input a (f64 3 4))
  (input b (f64 4 2))
  (let L (sum (mul C (matmul a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
