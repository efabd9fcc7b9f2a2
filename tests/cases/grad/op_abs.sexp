; d/dx of sum(C * abs(x)): g * sign(x) (no element of x is 0 here; abs at 0 is
; op_tie_abs_zero).
; wrt: x
(program op_abs
  (input C (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (abs x))))
  (output L (grad L x)))
