; Tiny magnitudes: a0 near 1e-300 and terms h_t * 1e-300 (subnormal sums
; included): the running sum after the loop keeps the loop's digits.
; dims: T=6 D=3
; scale: a0=1e-300 X=1e-3
; scans_after: 1
; fires: scan-accumulator-out
(program eq_accumulator_out_tiny
  (input X (f64 T D))
  (input h0 (f64 D))
  (input a0 (f64 D))
  (let (H A) (scan (sequences X) (outputs_info (sitsot h0) (sitsot a0))
    (fn (x h a) (let hn (tanh (add h x))) (outputs hn (add a (mul hn 1e-300))))))
  (output H (index A -1)))
