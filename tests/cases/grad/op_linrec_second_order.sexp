; linrec, second order: the gradient of a gradient's norm (the backward
; linrec differentiated in turn).
; wrt: a u
(program op_linrec_second_order
  (input a (f64 4 2))
  (input u (f64 4 2))
  (let L (sum (mul (linrec a u 1.0) (linrec a u 1.0))))
  (let (ga gu) (grad L a u))
  (let N (add (sum (mul ga ga)) (sum (mul gu gu))))
  (let (na nu) (grad N a u))
  (output N na nu))
