; The per-row sums of a filter's rows (axis 1) are one value per kept row:
; their count is the filter's, so the masked sum (which keeps every row)
; must not replace them; nor the sum over all elements of a filtered 3-D
; array (the mask is not broadcast over two axes).
; dims: T=9 N=3
; scans_after: 0
; not_fires: sum-compress sum-compress-axis0 sum-compress-rows
(program neg_filter_sum_other_axis
  (input X (f64 T N))
  (input Y (f64 T 2 N))
  (output (sum (filter (fn (r) (gt (sum r) 0.0)) X) 1)
          (sum (filter (fn (r) (gt (sum r) 0.0)) Y))))
