; cumprod over x with x[0] = 0 (input 0 of the data rule): the zero-safe
; gradient (PyTensor gives NaN at the zero; finite differences do not).
; wrt: x
(program op_cumprod_zero
  (input x (f64 5))
  (input C (f64 5))
  (let L (sum (mul C (cumprod x))))
  (output L (grad L x)))
