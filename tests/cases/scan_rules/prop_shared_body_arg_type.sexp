; Found by tests/proptest_scan.rs (seed 1123). The optimized inner loop ran
; 2 steps instead of 3 (sum 15.45 instead of 23.18 at T=8). Loop bodies
; are terms over positional (arg k) leaves, so loops share body classes:
; the inner scan over (arg 1: g0, f64[4]) at tap -1 in S14's body and the
; same scan over (arg 2: g0) in the loop scan-fuse makes of S14 and S17 both
; tidy to a 3-step scan with no sequence, so their projections are one
; class. Rebuilding the fused loop's body (scan-push-out-nonseq) could then
; pick S14's term and read its (arg 1) as the fused loop's input 1, which is
; S17's state b, f64[3]: a scan over b at tap -1, 2 steps. Now a body term
; is chosen only if each (arg k) leaf has the type of the loop's input k.
; dims: T=8
; scans_after: 2
; fires: scan-fuse scan-push-out-nonseq scan-tidy-inputs
(program prop
  (input Z (f64 4))
  (input V (f64))
  (input b (f64 3))
  (input g0 (f64 4))
  (input c0 (f64))
  (let S14 (scan
    (outputs_info (mitsot (stack 0 (max g0) c0) (taps -3)))
    (n_steps T)
    (fn (f1) (let (S11 S12) (scan (sequences (g0 (taps -1))) (outputs_info (sitsot (sum Z)) (nitsot)) (non_sequences V) (fn (x5 s6 w9) (outputs s6 x5)))) (sum S11))))
  (let S17 (scan
    (sequences S14)
    (outputs_info (sitsot b))
    (fn (x15 s16) (stack 2.0 c0 0))))
  (output S14))
