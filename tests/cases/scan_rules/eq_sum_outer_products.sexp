; Sums over the step axis of stacked outer products, column times row and
; row times column: each is one matrix product A^T B (sum-outer-products),
; with no T x P x Q temporary.
; dims: T=7 P=3 Q=4
; cost_dims: T=500 P=256 Q=256
; scans_after: 0
; fires: sum-outer-products
(program eq_sum_outer_products
  (input A (f64 T P))
  (input B (f64 T Q))
  (output
    (sum (mul (expand_dims A 2) (expand_dims B 1)) 0)
    (sum (mul (expand_dims B 1) (expand_dims A 2)) 0)))
