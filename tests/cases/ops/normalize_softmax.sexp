; softmax and log_softmax (SciPy's): along axis 0 and axis -1, at scale
; 1000 (the max shift keeps every value finite), a row with -inf
; entries (finite: [0, e^0 / ..]), a row of -inf, a row holding +inf and
; a row holding NaN (NaN where SciPy gives NaN), and an integer operand.
(program normalize_softmax
  (input X (f64 3 4))
  (input K (i64 2 3))
  (let E (tensor (f64 4 3) -inf 0.0 1.0 -inf -inf -inf 1.0 inf 2.0 3.0 nan 1.0))
  (output (softmax X 0) (softmax X -1) (log_softmax X 0) (log_softmax X -1)
          (softmax (mul X 1000.0) 1) (log_softmax (mul X 1000.0) 1)
          (softmax E 1) (log_softmax E 1) (softmax K 1) (log_softmax K 0)))
