; A constant non-sequence moves into a mitmot loop's body
; (scan-inline-constants) and an unused one is dropped (scan-tidy-inputs);
; the rebuilt loop keeps its tape and taps. (A tape of in taps (0 1 2),
; out taps (1 2): scan-mitmot-to-carry leaves it a mitmot.)
; dims: T=4 N=3
; scans_after: 1
; parts_after: mitmots=1 nonseqs=0
; fires: scan-inline-constants scan-tidy-inputs
(program eq_mitmot_inline_tidy
  (input X (f64 T N))
  (input G (f64 T N))
  (input unused (f64 N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)))
    (non_sequences (fill (f64 N) 0.5) unused)
    (fn (x g0 g1 g2 c u) (outputs (add g1 (mul (mul c x) g0)) (sub g2 g0)))))
  (output R))
