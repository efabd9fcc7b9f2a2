; A sum of a reversal is the sum of the array when its values are
; moderate (sum-reverse-axis, sum-reverse): tanh is within [-1, 1], so no
; order of its sum can overflow.
; dims: T=9 D=3
; scans_after: 0
; fires: sum-reverse-axis sum-reverse
(program eq_sum_reverse_moderate
  (input x (f64 T))
  (input m (f64 T D))
  (output (sum (slice (tanh x) none none -1) 0) (sum (slice (sin m) none none -1))))
