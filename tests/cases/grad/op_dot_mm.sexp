; dot of two matrices: (g B^T, A^T g).
; wrt: a b
(program op_dot_mm
  (input C (f64 3 2))
  (input a (f64 3 4))
  (input b (f64 4 2))
  (let L (sum (mul C (dot a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
