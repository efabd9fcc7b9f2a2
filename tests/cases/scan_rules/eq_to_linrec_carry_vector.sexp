; The retimed form a (s + u) with a per-step, per-element factor from a
; sequence and a vector state, forwards, at magnitudes near the largest
; double: the rewrite keeps the loop's own products and sums, so the
; outputs stay finite and equal.
; dims: T=6 N=3
; scale: X=1e300
; scans_after: 0
; fires: scan-to-linrec
(program eq_to_linrec_carry_vector
  (input R (f64 T N))
  (input X (f64 T N))
  (input h0 (f64 N))
  (let H (scan
    (sequences (sigmoid R) X)
    (outputs_info (sitsot h0))
    (fn (a x h) (mul a (add h (neg x))))))
  (output H (sum H 0)))
