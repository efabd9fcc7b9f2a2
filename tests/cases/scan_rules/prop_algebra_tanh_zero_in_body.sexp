; Found by tests/proptest_scan.rs (reduced by hand). In a scan body,
; tanh of the constant 0.0 becomes (fill (f64 2) -0.5); outside a body it
; stays 0.0. Needs tanh-sigmoid, sigmoid-def, exp-neg and exp-add of
; algebra.rules (dropping any one of them, or using (zeros (f64 2)),
; avoids it): likely the same unsound union of constants as
; prop_algebra_exp_tanh_zero.sexp.
; dims: T=4
(program prop
  (input W (f64 3 2))
  (let S (scan
    (outputs_info (sitsot (index W 0)))
    (n_steps 3)
    (fn (s) (tanh (fill (f64 2) 0.0)))))
  (output S))
