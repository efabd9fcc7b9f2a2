; slice with a step, ::2.
; wrt: x
(program op_slice_step
  (input C (f64 4))
  (input x (f64 7))
  (let L (sum (mul C (slice x none none 2))))
  (output L (grad L x)))
