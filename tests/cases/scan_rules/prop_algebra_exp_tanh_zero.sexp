; Found by tests/proptest_scan.rs (as the init of a mitsot, reduced by
; hand). exp(tanh(0.0)) is 1.0, but the optimized program outputs 0.0:
; with algebra.rules the e-graph builds constants such as +-1024
; (tanh-sigmoid, exp-add, exp-neg, sigmoid-def), exp-add equates
; exp(-1024 + 1024) with exp(-1024) * exp(1024), where exp(-1024)
; underflows to 0.0 and folds; constant folding then unions the class
; of 1.0 with 0.0. Not a Scan rewrite: algebra.rules alone does it.
(program prop
  (output (exp (tanh 0.0))))
