; the full inner trace as each outer step's output: T x M x N.
; dims: T=3 M=4 N=2
(program scan_nested_outputs
  (input X (f64 T M N))
  (input a0 (f64 N))
  (let Y (scan
    (sequences X)
    (non_sequences a0)
    (fn (x a)
      (scan
        (sequences x)
        (outputs_info (sitsot a))
        (fn (r acc) (add acc (mul 2.0 r)))))))
  (output Y))
