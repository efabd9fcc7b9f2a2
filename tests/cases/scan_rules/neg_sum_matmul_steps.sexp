; Where sum-matmul-steps must not fire: a symbolic step count beside a
; symbolic p (the reshape writes -1 for T*k, which is ambiguous next to a
; size that may be 0), a broadcast operand (a matrix, not a stack:
; (sum_t A_t) B is another rule's), a sum over another axis.
; dims: T=6 P=3
; scans_after: 0
; not_fires: sum-matmul-steps
(program neg_sum_matmul_steps
  (input X (f64 T 4 P))
  (input G (f64 T 4 5))
  (input A (f64 6 3 4))
  (input B (f64 4 5))
  (input C (f64 6 4 5))
  (output
    (sum (matmul (transpose X 0 2 1) G) 0)
    (sum (matmul A B) 0)
    (sum (matmul A C) 1)))
