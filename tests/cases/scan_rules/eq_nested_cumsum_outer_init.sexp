; A running sum nested in a loop body, started from the outer state: per
; row, r = s_{t-1} + cumsum(row); the outer state takes its last element.
; dims: T=4 N=3
; scans_after: 1
; fires: scan-to-cumulative
(program eq_nested_cumsum_outer_init
  (input X (f64 T N))
  (let (S R) (scan (sequences X) (outputs_info (sitsot 0.1) (nitsot))
    (fn (row s)
      (let C (scan (sequences row) (outputs_info (sitsot s)) (fn (e acc) (add acc e))))
      (outputs (tanh (index C -1)) C))))
  (output S R))
