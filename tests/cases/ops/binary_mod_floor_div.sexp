; mod and floor_div with NumPy's sign rules (the remainder takes the
; divisor's sign, the quotient is floored): floats with both signs, zero
; divisors (NaN), infinite divisors (mod(5, inf) = 5, mod(1, -inf) = -inf,
; floor_div(1, -inf) = -1), a -0.0 dividend; integers with both signs, a
; zero divisor (0, as NumPy gives with a warning), broadcasting against a
; row; bools promoted to i64 (NumPy gives int8).
(program binary_mod_floor_div
  (input X (f64 3 4))
  (let A (tensor (f64 9) 7.5 -7.5 7.5 -7.5 0.0 5.0 -0.0 1.0 1e300))
  (let B (tensor (f64 9) 2.0 2.0 -2.0 -2.0 0.0 inf 3.0 -inf 3e-300))
  (let I (tensor (i64 6) 7 -7 7 -7 0 9223372036854775807))
  (let J (tensor (i64 6) 3 3 -3 -3 0 -2))
  (let P (tensor (bool 2) true false))
  (output (mod A B) (floor_div A B) (mod I J) (floor_div I J)
          (mod (mul X 10.0) (tensor (f64 4) 3.0 -3.0 0.5 7.0))
          (floor_div (mul X 10.0) (tensor (f64 4) 3.0 -3.0 0.5 7.0))
          (mod P (tensor (bool 2) true true)) (floor_div P (tensor (bool 2) true true))))
