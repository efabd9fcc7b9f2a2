; sum-matmul-steps with a symbolic step count T and row count K (a
; batched loop's, issue 41): T*K has no size term, so the reshapes write
; -1 for it, and the cost model counts that size from the operand (T*K
; rows, not the default size). x_t^T g_t summed (X read in place) and
; A_t B_t summed (A moved to (p, T, k)).
; dims: T=7 K=5
; scans_after: 0
; fires: sum-matmul-steps
(program eq_sum_matmul_steps_symbolic
  (input X (f64 T K 3))
  (input G (f64 T K 4))
  (input A (f64 T 3 K))
  (output
    (sum (matmul (transpose X 0 2 1) G) 0)
    (sum (matmul A G) 0)))
