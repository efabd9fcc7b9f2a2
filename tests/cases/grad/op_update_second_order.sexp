; Second order through take, inc_take, set_take, set_index, clip and
; outer: N = sum(dL/dx * V), and dN/dx against finite differences of N.
; wrt: x
(program op_update_second_order
  (input C (f64 4 3))
  (input V (f64 4 3))
  (input x (f64 4 3))
  (let J (tensor (i64 5) 3 -1 0 3 1))
  (let T (take x J))
  (let U (set_take (inc_take x (mul T T) J) (sin (index x 0)) (tensor (i64 2) 2 2)))
  (let W (set_index (clip U -0.6 0.7) (tanh (index x 1)) 0))
  (let L (add (sum (mul C (mul W W))) (sum (outer (index x 2) (exp (index x 3))))))
  (let N (sum (mul (grad L x) V)))
  (output N (grad N x)))
