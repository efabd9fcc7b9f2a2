; Division of i32: div is true division in f64 (x/0 = +-inf, 0/0 = nan);
; floor_div and mod with NumPy's sign rules, 0 for a divisor of 0, and
; i32::MIN // -1 wrapping to i32::MIN; pow with i32 exponents.
(program i32_divmod
  (input K (i32 6))
  (let A (tensor (i32 7) 7 -7 7 -7 0 -2147483648 -2147483648))
  (let B (tensor (i32 7) 3 3 -3 -3 0 -1 0))
  (output (div A B) (floor_div A B) (mod A B) (floor_div A -2) (mod A 5) (floor_div K 0)
          (mod K 0) (div K 2) (floor_div K -3) (mod K -3) (floor_div A 2.5) (pow K 2)
          (pow K (tensor (i32 6) 0 1 2 3 31 13))))
