; Two independent loops with the same step count, one with a mitmot: they
; are not merged (a merged loop would interleave a tape's results with
; the other loop's outputs). The tape (in taps 0 1 2, out taps 1 2) is
; one scan-mitmot-to-carry refuses.
; dims: T=5 N=2
; scans_after: 2
; not_fires: scan-merge scan-mitmot-to-carry
(program neg_mitmot_merge
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)))
    (fn (x g0 g1 g2) (outputs (add g1 (mul x g0)) (add g2 (mul 0.5 g0))))))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot (zeros (f64 N))))
    (fn (x h) (tanh (add h x)))))
  (output R H))
