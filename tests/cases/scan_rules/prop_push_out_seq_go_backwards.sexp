; Found by tests/proptest_scan.rs (reduced), also with the Scan rewrites
; alone (EQSCAN_PROPTEST_RULES=scan). scan-push-out-seq on a go_backwards
; scan that stays a scan: the pushed-out sequence is computed on the
; reversed input, (dot (slice Z none none -1) (fill (f64 4) 3.0)), but the
; new scan keeps (go_backwards), so the sequence is reversed twice and the
; steps come out in the wrong order. Other reduced instances of the same
; bug: a sitsot (fn (x s) (sub s (where (gt -1 x) -1 x))), and a mitsot
; with taps (-2). When the whole body is pushed out (no scan left) the
; reversal is right.
; dims: T=8
(program prop
  (input Z (f64 T 4))
  (let S3 (scan
    (sequences Z)
    (go_backwards)
    (fn (x2) (stack 0 (dot x2 (fill (f64 4) 3.0))))))
  (output S3))
