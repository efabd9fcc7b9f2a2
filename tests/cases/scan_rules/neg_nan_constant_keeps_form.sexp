; A constant that folds to NaN (tanh of a NaN literal) keeps its computed
; form: giving it a literal form made the e-graph re-fold forever (a fuzz
; finding that hung optimize). The outputs stay NaN and X * 3.
; dims: T=3
; scans_after: 0
(program neg_nan_constant_keeps_form
  (input X (f64 T))
  (output (mul X 3.0) (tanh nan) (add X (tanh nan))))
