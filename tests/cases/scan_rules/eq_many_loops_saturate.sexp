; Five independent maps over the same sequence must saturate quickly and
; become five whole-sequence products.
; known_bug: saturation runs into the time limit: scan-merge joins every subset of the five loops (and scan-drop-output splits them again); four loops take 3 s, eight over 170 s
; dims: T=6 N=3
; scans_after: 0
; fires: scan-push-out-seq
(program eq_many_loops_saturate
  (input X (f64 T N))
  (let Y1 (scan (sequences X) (fn (x) (mul x 2.0))))
  (let Y2 (scan (sequences X) (fn (x) (mul x 3.0))))
  (let Y3 (scan (sequences X) (fn (x) (mul x 4.0))))
  (let Y4 (scan (sequences X) (fn (x) (mul x 5.0))))
  (let Y5 (scan (sequences X) (fn (x) (mul x 6.0))))
  (output Y1 Y2 Y3 Y4 Y5))
