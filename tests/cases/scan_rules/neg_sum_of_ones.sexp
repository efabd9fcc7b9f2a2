; Not a count: a sum of f32 ones (exact only below 2^24), a sum over an
; axis of a matrix (a vector of counts), and a sum of twos.
; dims: T=7
; scans_after: 0
; not_fires: sum-of-ones sum-of-ones-axis
(program neg_sum_of_ones
  (input v (f32 T))
  (input m (f64 T 3))
  (output (sum (where true (fill (f32) 1.0) v))
    (sum (where true (fill (f64) 1.0) m) 0)
    (sum (where true (fill (f64) 2.0) m))))
