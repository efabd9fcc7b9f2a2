; abs at 0 (x[0] = 0: input 0 of the data rule): PyTensor's gradient is
; sign(0) = 0 there (JAX gives 1). Values are PyTensor's.
(program op_tie_abs_zero
  (input x (f64 5))
  (input C (f64 5))
  (let L (sum (mul C (abs x))))
  (output L (grad L x)))
