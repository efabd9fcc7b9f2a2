; A condition that never holds: the loop runs every step its sequence
; allows (6), as a plain scan would. y_t = tanh(x_t), until sum(y_t) > 100
; (|sum| <= 3 here).
; dims: T=6 N=3
(program while_never_fires
  (input X (f64 T N))
  (let Y (scan
    (sequences X)
    (fn (x)
      (let y (tanh x))
      (outputs y (until (gt (sum y) 100.0))))))
  (output Y (sum Y)))
