; Second order through cholesky (its VJP's triangular solves and masks
; differentiated in turn).
; wrt: X
(program op_cholesky_second_order
  (input X (f64 3 3))
  (input W (f64 3 3))
  (input V (f64 3 3))
  (let A (add (matmul X (transpose X)) (mul 4.0 (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))))
  (let L (sum (mul W (cholesky A))))
  (let N (sum (mul (grad L X) V)))
  (output N (grad N X)))
