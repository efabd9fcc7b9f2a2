; a bool per step.
; dims: T=5 N=3
(program scan_bool_nitsot
  (input X (f64 T N))
  (let B (scan
    (sequences X)
    (fn (x) (gt x 0.0))))
  (output B))
