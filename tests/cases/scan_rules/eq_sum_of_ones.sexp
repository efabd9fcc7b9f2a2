; A sum of a ones-like tensor (the seed of a sum's gradient) is its
; element count, written from the shape (sum-of-ones, sum-of-ones-axis):
; T - 1 for a slice of a symbolic size, T * 3 for a matrix; no pass over
; memory is left.
; dims: T=7
; scans_after: 0
; fires: sum-of-ones sum-of-ones-axis
(program eq_sum_of_ones
  (input v (f64 T))
  (input m (f64 T 3))
  (let ones (where true (fill (f64) 1.0) (slice v 1 none 1)))
  (output (sum ones) (sum ones 0) (sum (where true (fill (f64) 1.0) m))))
