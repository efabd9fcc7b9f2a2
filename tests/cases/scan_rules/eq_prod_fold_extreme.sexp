; Running products at extreme magnitudes: s_t = s_{t-1} * (2 / x_t) from
; s_0 = a0 of about 1e-300 with factors of about 1e300. Grouped as
; s_0 * cumprod(F) the factors overflow to inf where the loop's products
; stay finite (found by the fuzz test); the fold keeps the loop's order,
; cumprod(concat(s_0, F))[1:] and prod(concat(s_0, F)), every value the
; loop's. A product started at 1 keeps the plain cumprod.
; dims: T=6 N=3
; scale: X=1e-300 a0=1e-300
; scans_after: 0
; fires: scan-to-cumulative scan-to-reduction
(program eq_prod_fold_extreme
  (input X (f64 T N))
  (input a0 (f64 N))
  (let (S P Q) (scan
    (sequences X)
    (outputs_info (sitsot a0) (sitsot a0) (sitsot (fill (f64 N) 1.0)))
    (fn (x s p q) (outputs (mul s (div 2.0 x)) (mul (div 2.0 x) p) (mul q (add x 1.0))))))
  (output S (index P -1) Q))
