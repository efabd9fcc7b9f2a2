; eq_sum_matmul_steps_symbolic at extreme magnitudes (products overflowing
; to inf, and near the smallest normals): the one product over T*K rows
; (the reshapes' -1) gives what the steps' products summed give.
; scale: X=1e150 G=1e150 A=1e-150
; dims: T=7 K=5
; scans_after: 0
; fires: sum-matmul-steps
(program eq_sum_matmul_steps_symbolic_extreme
  (input X (f64 T K 3))
  (input G (f64 T K 4))
  (input A (f64 T 3 K))
  (output
    (sum (matmul (transpose X 0 2 1) G) 0)
    (sum (matmul A G) 0)))
