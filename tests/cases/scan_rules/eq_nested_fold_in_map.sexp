; A fold nested in a map: per row, a running sum read at its end is a sum
; over the row, and the map of it a sum over axis 1: no loop.
; dims: T=4 N=5
; scans_after: 0
; fires: scan-to-reduction
(program eq_nested_fold_in_map
  (input X (f64 T N))
  (output (map (fn (row) (foldl (fn (acc e) (add acc e)) 0.0 row)) X)))
