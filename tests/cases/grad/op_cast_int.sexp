; No gradient flows through a cast to i64 (a step function): d/dx of
; sum(x * cast(f64, cast(i64, 10 x))) is the cast value alone. Finite
; differences would cross the steps; the values are PyTensor's.
(program op_cast_int
  (input x (f64 6))
  (let L (sum (mul x (cast f64 (cast i64 (mul x 10.0))))))
  (output L (grad L x)))
