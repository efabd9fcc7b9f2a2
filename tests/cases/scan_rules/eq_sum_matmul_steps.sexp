; A sum over the step axis of stacked matrix products is one product over
; all steps (sum-matmul-steps): x_t^T g_t summed (a weight gradient, X read
; in place through a reshape) and A_t B_t summed (A moved to (p, T, k)).
; scans_after: 0
; fires: sum-matmul-steps
(program eq_sum_matmul_steps
  (input X (f64 6 4 3))
  (input G (f64 6 4 5))
  (input A (f64 6 3 4))
  (output
    (sum (matmul (transpose X 0 2 1) G) 0)
    (sum (matmul A G) 0)))
