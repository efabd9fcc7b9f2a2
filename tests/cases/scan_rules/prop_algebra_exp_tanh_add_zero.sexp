; Found while reducing prop_algebra_exp_tanh_zero.sexp: the same unsound
; union of constants (see there) reached non-constant terms: the optimized
; program was (exp (exp X)) instead of exp(tanh(X)) + 0.
; scans_after: 0
(program prop
  (input X (f64 3))
  (output (add (exp (tanh X)) (tanh 0.0))))
