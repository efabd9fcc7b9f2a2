; maximum(x, x): every element a tie; the two halves of the rule add up to
; the cotangent, d/dx = C. Values are PyTensor's.
(program op_tie_maximum_self
  (input C (f64 5))
  (input x (f64 5))
  (let L (sum (mul C (maximum x x))))
  (output L (grad L x)))
