; Running max, min, product and sum read only at their end become
; reductions over the time axis combined with the init.
; dims: T=6 N=3
; scans_after: 0
; fires: scan-to-reduction
(program eq_reductions_at_end
  (input X (f64 T N))
  (input a0 (f64 N))
  (let (MX MN PR SM) (scan (sequences X)
    (outputs_info (sitsot a0) (sitsot a0) (sitsot a0) (sitsot a0))
    (fn (x a b c d) (outputs (maximum a x) (minimum x b) (mul c (add x 1.0)) (add (exp x) d)))))
  (output (index MX -1) (index MN -1) (index PR -1) (index SM -1)))
