; eq_last_row_of_running_sum on subnormals. The last row of a running sum down axis 0 is the sum down axis 0 (both
; add the rows in order): cumsum-last-2 and cumsum-last-3. A sum down axis 0
; of a zero row and F is F's sum (sum-zero-row-2), and the last row of
; X[1:] is X's (index-slice-last): the shape of an accumulator pushed out
; of a loop and read at its end. Vectors are left alone (their sum is
; pairwise: another order).
; scale: X=1e-310 Y=1e-310 v=1e-310
; scans_after: 0
; fires: cumsum-last-2 cumsum-last-3 sum-zero-row-2 index-slice-last
(program eq_last_row_of_running_sum_tiny
  (input X (f64 5 3))
  (input Y (f64 4 2 3))
  (input v (f64 7))
  (output
    (index (cumsum X 0) -1)
    (index (cumsum Y 0) -1)
    (sum (concat 0 (expand_dims (zeros (f64 3)) 0) X) 0)
    (index (slice X 1 none 1) -1)
    (index (cumsum v 0) -1)))
