; a scan inside fn: the inner one runs over the rows of each outer step.
; dims: T=4 M=3 N=2
(program scan_nested
  (input X (f64 T M N))
  (let Y (scan
    (sequences X)
    (fn (x)
      (let inner (scan
        (sequences x)
        (outputs_info (sitsot (zeros (f64 N))))
        (fn (r acc) (add (mul acc 0.5) (mul r r)))))
      (index inner -1))))
  (output Y))
