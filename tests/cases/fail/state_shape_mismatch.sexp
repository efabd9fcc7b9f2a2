; the update is a scalar, the init a vector of 3.
; args: fmt
(program p
  (input X (f64 5 3))
  (input a0 (f64 3))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (fn (x a) (sum (add a x)))))
  (output A))
