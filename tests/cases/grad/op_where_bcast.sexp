; where with broadcasting: a (3,4), b a 0-d input, cond (4,): db sums g over
; the unselected elements.
; wrt: a b
(program op_where_bcast
  (input C (f64 3 4))
  (input a (f64 3 4))
  (input b (f64))
  (input c (f64 4))
  (let L (sum (mul C (where (gt c 0.0) a b))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
