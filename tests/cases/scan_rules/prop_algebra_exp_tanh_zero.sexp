; Found by tests/proptest_scan.rs (as the init of a mitsot, reduced by
; hand). exp(tanh(0.0)) is 1.0, but the optimized program output 0.0:
; tanh-sigmoid, sigmoid-def, exp-neg and exp-add built constants such as
; +-1024, exp-add equated exp(-1024 + 1024) with exp(-1024) * exp(1024),
; exp(-1024) underflowed to 0.0, and the class of 1.0 was unioned with
; that of 0.0 * inf. Fixed by the appliers refusing unions of different
; constants and the exp-safe guard (rules/README.md, invariant 3).
; scans_after: 0
(program prop
  (output (exp (tanh 0.0))))
