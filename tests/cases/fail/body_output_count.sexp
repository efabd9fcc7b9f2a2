; two outputs_info entries, one body output.
; args: fmt
(program p
  (input X (f64 5 3))
  (input a0 (f64 3))
  (let (A B) (scan
    (sequences X)
    (outputs_info (sitsot a0) (nitsot))
    (fn (x a) (add a x))))
  (output A B))
