; A vector state with a per-step scalar factor from a sequence (an
; exponential moving average with a time-varying rate): the factor gets
; the state's axis after the time axis; the term is a per-step row.
; dims: T=6 N=3
; scans_after: 0
; fires: scan-to-linrec
(program eq_to_linrec_vector
  (input rho (f64 T))
  (input X (f64 T N))
  (input h0 (f64 N))
  (let H (scan
    (sequences (sigmoid rho) X)
    (outputs_info (sitsot h0))
    (fn (a x h) (add (mul h a) (mul (sub 1.0 a) x)))))
  (output H (index H -1)))
