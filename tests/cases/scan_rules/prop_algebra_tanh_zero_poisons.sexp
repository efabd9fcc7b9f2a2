; Found by tests/proptest_scan.rs (a map with an unused non-sequence
; (tanh 0.0), reduced by hand). The optimized program is (output X 0.0):
; once (tanh 0.0) is in the e-graph, 3.0 and 1.0 end up in one class, so
; (mul X 3.0) becomes X. algebra.rules alone does it (12 iterations, 379
; e-nodes); it needs tanh-sigmoid, sigmoid-def and exp-add (not exp-neg).
; Likely the same unsound union as prop_algebra_exp_tanh_zero.sexp.
(program prop
  (input X (f64 2))
  (output (mul X 3.0) (tanh 0.0)))
