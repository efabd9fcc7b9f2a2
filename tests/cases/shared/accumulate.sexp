; A running total and a call counter kept across calls; the counter's
; update is a weak literal sum, the total's reads an input.
; dims: N=3
(program accumulate
  (input x (f64 N))
  (shared total (f64 N))
  (shared count (i64))
  (update total (add total x))
  (update count (add count 1))
  (output (mul total 2.0) count))
