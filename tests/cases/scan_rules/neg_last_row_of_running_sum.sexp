; Where the last-row rules must not fire: a symbolic length (it may be 0:
; cumsum's last row is then an error, the sum a zero row; X[1:] of one row
; is empty), a vector (its sum is pairwise, not in order).
; dims: T=5
; scans_after: 0
; not_fires: cumsum-last-2 cumsum-last-3 sum-zero-row-2 sum-zero-row-3 index-slice-last
(program neg_last_row_of_running_sum
  (input X (f64 T 3))
  (input v (f64 7))
  (output
    (index (cumsum X 0) -1)
    (sum (concat 0 (expand_dims (zeros (f64 3)) 0) X) 0)
    (index (slice X 1 none 1) -1)
    (index (cumsum v 0) -1)
    (sum (concat 0 (expand_dims 0.0 0) v) 0)))
