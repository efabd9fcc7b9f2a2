; Reductions of i32 as NumPy 2 gives them on 64-bit Linux: sum, prod,
; cumsum and cumprod in i64 (so a sum that leaves i32 does not wrap),
; max and min i32, argmax and argmin i64, mean f64. X's elements reach
; +-2e9: the sums leave i32, the products wrap i64.
; scale: X=4e8
(program i32_reduce
  (input X (i32 3 4))
  (output (sum X) (sum X 0) (sum X -1) (prod X) (prod X 1) (cumsum X 1) (cumsum X 0)
          (cumprod X 1) (max X) (max X 0) (min X 1) (argmax X) (argmin X 0) (argmax X 1)
          (mean X) (mean X 1) (sum (add X X))))
