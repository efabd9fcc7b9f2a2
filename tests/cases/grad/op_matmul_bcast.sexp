; batched matmul against one matrix: dL/dB sums over the batch.
; wrt: a b
(program op_matmul_bcast
  (input C (f64 2 3 2))
  (input a (f64 2 3 4))
  (input b (f64 4 2))
  (let L (sum (mul C (matmul a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
