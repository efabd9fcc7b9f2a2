; dot of a matrix and a vector: (outer(g, b), A^T g).
; wrt: a b
(program op_dot_mv
  (input C (f64 3))
  (input a (f64 3 5))
  (input b (f64 5))
  (let L (sum (mul C (dot a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
