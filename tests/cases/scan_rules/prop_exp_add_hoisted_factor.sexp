; Found by tests/proptest_scan.rs at inputs near +-710 (reduced by the
; test). The step exp(A - maximum(x, W)), with A = W here (W > 2), is at
; most 1; exp-add splits it into exp(A) * exp(-maximum(x, W)) so that
; exp(A), loop-invariant, is computed once before the loop. With W = 771
; (scale 3000) exp(A) is inf and exp(-771) is 0: NaN where the program as
; written gives 1.
; dims: T=6
; scale: W=3000.0
; scans_after: 0
(program prop
  (input Z (f64 3))
  (input W (f64))
  (let S10 (scan
    (sequences ((tanh Z) (taps -1)))
    (fn (x3) (exp (sub (where (gt 2.0 W) (fill (f64 4) 2.0) W) (maximum x3 W))))))
  (output S10))
