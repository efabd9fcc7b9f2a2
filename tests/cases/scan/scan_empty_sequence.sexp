; T=0: outputs have 0 rows and the step's shape.
; dims: T=0 N=3
(program scan_empty_sequence
  (input X (f64 T N))
  (input a0 (f64 N))
  (let (Y A) (scan
    (sequences X)
    (outputs_info (nitsot) (sitsot a0))
    (fn (x a) (outputs (mul x 2.0) (add a x)))))
  (output Y A))
