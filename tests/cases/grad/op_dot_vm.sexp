; dot of a vector and a matrix: (B g, outer(a, g)).
; wrt: a b
(program op_dot_vm
  (input C (f64 5))
  (input a (f64 3))
  (input b (f64 3 5))
  (let L (sum (mul C (dot a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
