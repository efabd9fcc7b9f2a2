; T=0 with scalar steps: shape (0,).
; dims: T=0 N=3
(program scan_empty_scalar_steps
  (input X (f64 T N))
  (let Y (scan
    (sequences X)
    (fn (x) (sum x))))
  (output Y))
