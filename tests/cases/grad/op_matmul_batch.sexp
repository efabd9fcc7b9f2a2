; batched matmul, equal batch dims.
; wrt: a b
(program op_matmul_batch
  (input C (f64 2 3 2))
  (input a (f64 2 3 4))
  (input b (f64 2 4 2))
  (let L (sum (mul C (matmul a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
