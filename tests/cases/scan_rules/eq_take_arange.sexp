; take of an arange (users' X[np.arange(n)]): of the axis's whole length
; it is X itself (along axis 0 and, on a transposed operand, axis 1), of
; a literal length within a known axis a slice of rows; where the length
; may exceed the axis (a symbolic one), take stays, to fail as written.
; dims: N=4
; scans_after: 0
; fires: take-arange-all take-arange-rows
(program eq_take_arange
  (input X (f64 N 3))
  (input Y (f64 5 3))
  (output (take X (arange N)) (take Y (arange 3)) (take Y (arange 5) 0)
          (take (transpose Y) (arange 5) 1) (take X (arange 2))))
