; A reduction of a filter becomes a masked reduction that never builds
; the filtered array (issue 37): the sum over the rows of X whose sum is
; positive is sum(where(mask[:, None], X, 0), 0), and the sum of the
; elements of v below 0.1 is sum(where(v < 0.1, v, 0)); the predicates'
; map loops are computed on whole arrays (scan-push-out-seq), so no loop
; is left. The rows left out add zeros: the same sums.
; dims: T=9 N=3
; scans_after: 0
; fires: sum-compress-rows sum-compress scan-push-out-seq
(program eq_filter_masked_sum
  (input X (f64 T N))
  (input v (f64 T))
  (output (sum (filter (fn (r) (gt (sum r) 0.0)) X) 0)
          (sum (filter (fn (e) (lt e 0.1)) v))))
