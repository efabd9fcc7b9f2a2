; Found by tests/proptest_scan.rs at inputs near +-710 and near 1e3
; (reduced by the test, then by hand). The loop's step is
; sum(exp(J3 - max J3)), at most 9 here; exp-add and sum-scale-right
; rewrite it to exp(-max J3) * sum(exp(J3)), and scan-push-out-nonseq
; hoists it. Once |J3| passes about 709 this is inf * 0 = NaN. The same
; fault as prop_logsumexp_beyond_709.sexp, inside a loop.
; dims: T=5
; scale: J3=2000.0
; scans_after: 0
(program prop
  (input J3 (f64 3 3))
  (let S (scan
    (outputs_info (sitsot 0.0))
    (n_steps 2)
    (fn (s) (sum (exp (sub J3 (max J3)))))))
  (output S))
