; a scan over one sequence with no outputs_info: one nitsot output.
; dims: T=5 N=3
(program scan_map_nitsot
  (input X (f64 T N))
  (let Y (scan
    (sequences X)
    (fn (x) (add (mul x 2.0) (sin x)))))
  (output Y))
