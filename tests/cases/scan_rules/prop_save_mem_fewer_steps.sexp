; Found by tests/proptest_scan.rs (a 10,000-program run, reduced by the
; test). The loop's length is symbolic (T - 2 steps), so save-mem could
; not compare it with the 3 steps a mitsot with tap -3 keeps: the
; optimized program has (keep 3), and at T = 4 the loop runs 2 steps. The
; executors refused to run it; a loop of fewer steps than an output keeps
; now keeps them all. The mitsot here adds the sequence to its state, so
; the last value is checked numerically.
; dims: T=4
; scans_after: 1
; fires: scan-save-mem
(program prop
  (input Z (f64 T))
  (let (S13 S14) (scan
    (sequences (Z (taps -2 0)))
    (outputs_info (sitsot -1.5) (mitsot (fill (f64 3) 0.5) (taps -3 -1)))
    (fn (x1 x2 s4 f5 f7) (outputs x2 (add f5 (mul f7 x1))))))
  (output (index S14 -1)))
