; three names bound to a scan with two outputs.
; args: fmt
(program p
  (input X (f64 5 3))
  (let (A B C) (scan
    (sequences X)
    (fn (x) (outputs (sin x) (cos x)))))
  (output A))
