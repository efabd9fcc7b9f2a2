; Found by tests/proptest_scan.rs (a 10,000-program run; reduced by the
; test, then by hand). The inner loop's output reads only the outer
; loop's x1 and w8 (closures, passed to it as non-sequences), so
; push-out-nonseq makes it a broadcast in the outer body. The outer form
; of the inner parameter w8 came out as x1: where(gt(w8, x1), w8, x1)
; became where(gt(x1, x1), x1, x1). Parameters are numbered per scope, so
; the inner body's Arg 5 (x1) and the outer body's Arg 5 (w8) are one
; e-class, and the vectorizer replaced a node's children in sequence:
; w8 -> outer Arg 5, then that (as inner Arg 5) -> outer Arg 0. Each child
; is now replaced once. The outer loop's sequences allow T-1 and T-2
; steps: both are cut to the T-2 it runs, so its output is a term of
; X[1:-1] and no loop is left.
; dims: T=5
; scans_after: 0
(program nested_closure
  (input X (f64 T 4))
  (input b (f64 4))
  (input g0 (f64 2))
  (input W (f64 2 4))
  (input J3 (f64 3 2))
  (let S27 (scan
    (sequences (X (taps 0 -1)) (X (taps -2 0)))
    (outputs_info (sitsot g0))
    (non_sequences b)
    (fn (x1 x2 x3 x4 f7 w8)
      (let S15 (scan
        (sequences (J3 (taps -1)))
        (outputs_info (sitsot (sum x1)))
        (non_sequences W x1)
        (fn (x9 s10 w13 w14) (index (where (gt w8 x1) w8 x1) 0))))
      S15)))
  (output S27))
