; dot of two vectors (a scalar): (g b, g a).
; wrt: a b
(program op_dot_vv
  (input C (f64))
  (input a (f64 5))
  (input b (f64 5))
  (let L (sum (mul C (dot a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
