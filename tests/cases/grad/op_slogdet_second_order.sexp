; Second order through slogdet: N = sum(dL/dX * V), whose gradient goes
; through the inverse's VJP.
; wrt: X
(program op_slogdet_second_order
  (input X (f64 2 3 3))
  (input w (f64 2))
  (input V (f64 2 3 3))
  (let A (add X (tensor (f64 2 3 3) 3.0 0.0 0.0 0.0 3.0 0.0 0.0 0.0 3.0 -3.0 0.0 0.0 0.0 -3.0 0.0 0.0 0.0 -3.0)))
  (let (sign logdet) (slogdet A))
  (let L (sum (mul w logdet)))
  (let N (sum (mul (grad L X) V)))
  (output N (grad N X)))
