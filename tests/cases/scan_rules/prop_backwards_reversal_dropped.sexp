; Found by tests/proptest_scan.rs (reduced, then by hand), also with the
; Scan rewrites alone. A go_backwards scan with a loop-invariant output
; (A, the constant 0.0) and a varying one (B): reversing B afterwards,
; (slice B none none -1), is lost — the optimized program is
; (tanh (slice Z none none -1)) instead of its reverse. Without the
; invariant output the result is right, (slice (tanh (slice Z none none
; -1)) none none -1), and so are (slice B 1 none) and (index B 0): it looks
; as if "reversing an invariant output changes nothing" were applied to
; every output of the scan. Also found as two scanr, one of them unused
; with a constant body (scan-merge makes them one scan).
; dims: T=5
(program prop
  (input Z (f64 T))
  (let (A B) (scan (sequences Z) (go_backwards) (fn (x) (outputs 0.0 (tanh x)))))
  (output (slice B none none -1)))
