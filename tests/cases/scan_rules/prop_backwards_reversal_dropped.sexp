; Found by tests/proptest_scan.rs (two scanr, reduced by hand), also with
; the Scan rewrites alone. S6 is a go_backwards map reversed afterwards
; (what scanr lowers to), so S6 = tanh(Z); the optimized program is
; (tanh (slice Z none none -1)): one reversal is lost. Without the unused
; go_backwards scan S3 the result is right, (slice (tanh (slice Z none
; none -1)) none none -1); with S3 going forwards it is right too.
; dims: T=5
(program prop
  (input X (f64 T))
  (input Z (f64 T 3))
  (let S3 (scan (sequences X) (go_backwards) (fn (x) 0.0)))
  (let S6 (slice (scan (sequences Z) (go_backwards) (fn (x) (tanh x))) none none -1))
  (output S6))
