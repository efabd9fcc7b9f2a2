; solve_triangular reads only one triangle: the other holds nan, inf and
; huge values, which must not reach the result.
(program linalg_triangular
  (input B (f64 3 2))
  (input b (f64 3))
  (let L (tensor (f64 3 3) 2.0 nan inf 0.5 -3.0 1e300 1.5 -0.25 4.0))
  (let U (tensor (f64 3 3) 2.0 0.5 1.5 nan -3.0 -0.25 -inf 1e300 4.0))
  (output (solve_triangular L B true) (solve_triangular U B false) (solve_triangular L b true)
          (solve_triangular U b false)))
