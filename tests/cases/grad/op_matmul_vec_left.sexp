; matmul with a 1-D left operand.
; wrt: a b
(program op_matmul_vec_left
  (input C (f64 2 4))
  (input a (f64 3))
  (input b (f64 2 3 4))
  (let L (sum (mul C (matmul a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
