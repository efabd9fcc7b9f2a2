; Not sums of per-step outer products: a row that is the same at every
; step (broadcast along the step axis), a sum over another axis, and
; integer operands. sum-outer-products does not fire; the values stay.
; dims: T=7 P=3 Q=4
; scans_after: 0
; not_fires: sum-outer-products
(program neg_sum_outer_products
  (input A (f64 T P))
  (input B (f64 T Q))
  (input r (f64 Q))
  (input I (i64 T P))
  (input J (i64 T Q))
  (output
    (sum (mul (expand_dims A 2) (expand_dims r 0)) 0)
    (sum (mul (expand_dims A 2) (expand_dims B 1)) 1)
    (sum (mul (expand_dims I 2) (expand_dims J 1)) 0)))
