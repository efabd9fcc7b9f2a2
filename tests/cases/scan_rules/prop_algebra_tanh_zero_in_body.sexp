; Found by tests/proptest_scan.rs (reduced by hand). In a scan body,
; tanh of the constant 0.0 became (fill (f64 2) -0.5): the same unsound
; union of constants as prop_algebra_exp_tanh_zero.sexp.
; Now the body is the constant 0.0 and the loop its broadcast.
; dims: T=4
; scans_after: 0
(program prop
  (input W (f64 3 2))
  (let S (scan
    (outputs_info (sitsot (index W 0)))
    (n_steps 3)
    (fn (s) (tanh (fill (f64 2) 0.0)))))
  (output S))
