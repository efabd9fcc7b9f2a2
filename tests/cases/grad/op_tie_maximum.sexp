; maximum at ties (PyTensor's rule: a tie goes wholly to the first
; argument). b equals x at the even positions (a where of x and y), so
; d/db is 0 there and d/dx is the whole cotangent; finite differences are
; undefined at a tie, so the values are PyTensor's (tests/grad_cases.py).
; Elsewhere b is -2y, larger than x at two of the three odd positions.
(program op_tie_maximum
  (input C (f64 6))
  (input x (f64 6))
  (input y (f64 6))
  (let b (where (tensor (bool 6) true false true false true false) x (mul y -2.0)))
  (let L (sum (mul C (maximum x b))))
  (let (gx gy gb) (grad L x y b))
  (output L gx gy gb))
