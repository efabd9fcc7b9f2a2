; COST may be any float scalar: an indexed element of a vector.
; wrt: x
(program op_grad_scalar_cost_index
  (input x (f64 4))
  (let L (index (cumprod (add x 1.0)) -1))
  (output L (grad L x)))
