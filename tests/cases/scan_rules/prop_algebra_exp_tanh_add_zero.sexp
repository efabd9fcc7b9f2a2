; Found while reducing prop_algebra_exp_tanh_zero.sexp: the same unsound
; union (exp-add / exp-neg / tanh-sigmoid / sigmoid-def with constants
; that under/overflow exp) reaches non-constant terms: the optimized
; program is (exp (exp X)) instead of exp(tanh(X)) + 0.
(program prop
  (input X (f64 3))
  (output (add (exp (tanh X)) (tanh 0.0))))
