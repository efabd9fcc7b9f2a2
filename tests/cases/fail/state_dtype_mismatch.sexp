; the init is i64, the update f64.
; args: fmt
(program p
  (input X (f64 5 3))
  (input k0 (i64 3))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot k0))
    (fn (x a) (add a x))))
  (output A))
