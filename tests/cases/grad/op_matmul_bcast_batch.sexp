; batched matmul with a length-1 batch dim broadcast: dL/dA keeps it (sum over
; the batch, keepdims).
; wrt: a b
(program op_matmul_bcast_batch
  (input C (f64 2 3 2))
  (input a (f64 1 3 4))
  (input b (f64 2 4 2))
  (let L (sum (mul C (matmul a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
