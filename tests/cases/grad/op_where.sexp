; where(c, a, b): a gets g where c holds, b where it does not, c nothing (it
; is a comparison of an input).
; wrt: a b x
(program op_where
  (input C (f64 3 4))
  (input a (f64 3 4))
  (input b (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (where (gt x 0.0) a (mul b x)))))
  (let (ga gb gx) (grad L a b x))
  (output L ga gb gx))
