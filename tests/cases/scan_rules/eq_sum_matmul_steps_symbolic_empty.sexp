; eq_sum_matmul_steps_symbolic run with no steps (T=0): the reshapes'
; -1 is 0 rows, and the product of a 3x0 and a 0x4 matrix is zeros, as
; the sum over no steps is; priced as a long loop (cost_dims).
; dims: T=0 K=5
; cost_dims: T=1000
; scans_after: 0
; fires: sum-matmul-steps
(program eq_sum_matmul_steps_symbolic_empty
  (input X (f64 T K 3))
  (input G (f64 T K 4))
  (input A (f64 T 3 K))
  (output
    (sum (matmul (transpose X 0 2 1) G) 0)
    (sum (matmul A G) 0)))
