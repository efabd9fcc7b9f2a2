; cast between floats: f64 -> f32 -> f64. The cotangent is cast back to
; each operand's dtype, so the product's VJP is computed in f32. Values
; are PyTensor's (finite differences in f32 are too coarse).
(program op_cast_f32
  (input x (f64 6))
  (input C (f64 6))
  (let y (cast f32 x))
  (let L (sum (mul C (cast f64 (mul y y)))))
  (output L (grad L x)))
