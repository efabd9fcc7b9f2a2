; Integer literals are exact, as Python integers under NumPy 2: the optimizer
; must not combine two of them into a wrapped i64 (issue 11, point 2: these
; three were optimized to (mul x 0), a flipped sign and a wrapped sum).
(program literal_int_exact
  (input x (f64 3))
  (input k (i64 3))
  (output
    (mul (mul x 4294967296) 4294967296)
    (neg (mul x -9223372036854775808))
    (add (add x 9223372036854775807) 1)
    (mul (mul k 4294967296) 4294967296)
    (add (add k 9223372036854775807) 1)))
