; matmul with a 1-D right operand (promoted, then squeezed).
; wrt: a b
(program op_matmul_vec
  (input C (f64 2 3))
  (input a (f64 2 3 4))
  (input b (f64 4))
  (let L (sum (mul C (matmul a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
