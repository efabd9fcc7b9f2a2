; logsumexp (SciPy's): over all axes, along axis 0 and axis -1, with
; ordinary values, values near 1e308 (the max shift keeps them finite),
; a row of -inf (-inf), a row holding +inf (+inf), a row holding NaN
; (NaN), and an integer operand (computed in f64).
(program reduce_logsumexp
  (input X (f64 3 4))
  (input K (i64 2 3))
  (let E (tensor (f64 4 3) -inf -inf -inf 1.0 inf 2.0 1e308 1e308 -1e308 3.0 nan 1.0))
  (output (logsumexp X) (logsumexp X 0) (logsumexp X -1) (logsumexp (mul X 1000.0) 1)
          (logsumexp E 1) (logsumexp K) (logsumexp K 0)))
