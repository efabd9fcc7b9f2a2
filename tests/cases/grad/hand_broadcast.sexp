; A hand-written gradient with broadcasting: L = sum(A * b * b) with b
; broadcast along the rows; dL/dA = b*b, dL/db = 2 b * column sums of A.
; 40 elements of A: 16 of them are sampled.
; wrt: A b
(program hand_broadcast
  (input A (f64 8 5))
  (input b (f64 5))
  (output (sum (mul (mul A b) b))
    (mul (fill (f64 8 5) 1.0) (mul b b))
    (mul (mul 2.0 b) (sum A 0))))
