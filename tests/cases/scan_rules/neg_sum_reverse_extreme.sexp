; Not for values of unknown range: x scaled to 1e308, its sum in one order
; may overflow where the other does not (1e308 + 1e308 - 1e308), so the
; reversal stays, and the optimized sum equals the original's.
; dims: T=9
; scale: x=1e308
; scans_after: 0
; not_fires: sum-reverse-axis sum-reverse
(program neg_sum_reverse_extreme
  (input x (f64 T))
  (output (sum (slice x none none -1) 0) (sum (slice (mul x 1.5) none none -1))))
