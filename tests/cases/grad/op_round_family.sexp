; floor, ceil and round have gradient zero (JAX's and PyTensor's
; convention; they are piecewise constant): L = sum(C * (floor(3x) +
; ceil(3x) + round(3x)) + x), dL/dx = 1 everywhere the data puts x (no
; value of 3x within a finite-difference step of an integer or a half).
; wrt: x
(program op_round_family
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let y (mul 3.0 x))
  (let L (sum (add (mul C (add (add (floor y) (ceil y)) (round y))) x)))
  (output L (grad L x)))
