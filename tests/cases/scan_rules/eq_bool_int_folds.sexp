; Folds of other dtypes read at their end: a bool running maximum (any)
; and an i64 running minimum become max / min reductions of that dtype.
; dims: T=6 N=3
; scans_after: 0
; fires: scan-to-reduction
(program eq_bool_int_folds
  (input X (f64 T N))
  (input K (i64 T N))
  (input b0 (bool N))
  (input k0 (i64 N))
  (let (B M) (scan (sequences X K) (outputs_info (sitsot b0) (sitsot k0))
    (fn (x k b m) (outputs (maximum b (gt x 0.3)) (minimum m (mul k 2))))))
  (output (index B -1) (index M -1)))
