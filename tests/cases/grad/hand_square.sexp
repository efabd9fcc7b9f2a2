; A gradient written by hand, to check the harness itself: L = sum(x*x),
; dL/dx = 2x; every element of x is perturbed.
; wrt: x
(program hand_square
  (input x (f64 3 4))
  (output (sum (mul x x)) (mul 2.0 x)))
