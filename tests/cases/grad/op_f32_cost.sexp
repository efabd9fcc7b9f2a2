; An f32 cost and an f32 input: the gradient has the input's dtype, f32.
; Values are PyTensor's.
(program op_f32_cost
  (input x (f32 2 3))
  (input C (f32 2 3))
  (let L (sum (mul C (mul x x))))
  (output L (grad L x)))
