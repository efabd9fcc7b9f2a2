; one sequence and one sitsot need 2 parameters.
; args: fmt
(program p
  (input X (f64 5 3))
  (input a0 (f64 3))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (fn (x) (add x 1.0))))
  (output A))
