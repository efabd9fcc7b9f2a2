; A numeric (f64) condition, not a bool: max(0, a_t - 3) is 0.0 (false)
; until the running sum a_t = a + x_t, from a0 (0.482 by the data rule),
; passes 3, then positive (true). The sums run 0.482, 0.663, 1.000, 1.448,
; 1.946, 2.427, 2.825, 3.087: 8 of the 20 steps (the nearest miss, 2.825,
; is 0.17 below 3; the hit 0.09 above).
; dims: T=20
(program while_numeric_cond
  (input X (f64 T))
  (input a0 (f64))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (fn (x a)
      (let a1 (add a x))
      (outputs a1 (until (maximum 0.0 (sub a1 3.0)))))))
  (output A))
