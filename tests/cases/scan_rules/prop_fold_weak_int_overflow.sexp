; Issue 11, point 2 (found by hand; tests/fuzz.rs finds it from this file).
; Constant folding multiplies the weak integer literals in i64, where
; 4294967296 * 4294967296 wraps to 0: the optimized program was
; (mul x 0). NumPy converts a weak literal to the result dtype (f64 here)
; first, so each output is x times a large float. The other two outputs
; wrap the same way (a sign flip, and i64::MAX + 1).
; dims: N=3
; scans_after: 0
(program p
  (input x (f64 N))
  (output
    (mul (mul x 4294967296) 4294967296)
    (neg (mul x -9223372036854775808))
    (add (add x 9223372036854775807) 1)))
