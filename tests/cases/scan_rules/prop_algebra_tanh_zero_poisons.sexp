; Found by tests/proptest_scan.rs (a map with an unused non-sequence
; (tanh 0.0), reduced by hand). The optimized program was (output X 0.0):
; once (tanh 0.0) was in the e-graph, 3.0 and 1.0 ended up in one class,
; so (mul X 3.0) became X. The same unsound union of constants as
; prop_algebra_exp_tanh_zero.sexp.
; scans_after: 0
(program prop
  (input X (f64 2))
  (output (mul X 3.0) (tanh 0.0)))
