; Extreme magnitudes: a0 near ±5e307 and terms h_t * 1.5e308 near the top
; of f64. A sum in another order (a0 + (f_1 + ... + f_T)) could overflow
; where the loop's does not; the cumsum after the loop adds a0, f_1, f_2,
; ... in the loop's order, so each value is the loop's, finite where it is
; finite.
; dims: T=6 D=3
; scale: a0=1e308
; scans_after: 1
; parts_after: sitsots=1 nitsots=0
; fires: scan-accumulator-out
(program eq_accumulator_out_extreme
  (input X (f64 T D))
  (input h0 (f64 D))
  (input a0 (f64 D))
  (let (H A) (scan (sequences X) (outputs_info (sitsot h0) (sitsot a0))
    (fn (x h a) (let hn (tanh (add h x))) (outputs hn (add a (mul hn 1.5e308))))))
  (output H (index A -1)))
