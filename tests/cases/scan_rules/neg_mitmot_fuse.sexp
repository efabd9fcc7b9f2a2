; A recurrence over a mitmot loop's tape, and a mitmot loop over a
; recurrence's output: scan-fuse refuses both (the tape is not a per-step
; output, and the fused loop's results would not line up with its
; outputs); the three loops stay. The tape (in taps 0 1 2, out taps 1 2)
; is one scan-mitmot-to-carry refuses.
; dims: T=5 N=2
; scans_after: 3
; not_fires: scan-fuse scan-merge scan-mitmot-to-carry
(program neg_mitmot_fuse
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let M (scan
    (sequences X)
    (outputs_info (sitsot (zeros (f64 N))))
    (fn (x h) (tanh (add h x)))))
  (let R (scan
    (sequences M)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)))
    (fn (m g0 g1 g2) (outputs (add g1 (mul m g0)) (add g2 (mul 0.5 g0))))))
  (let Z (scan
    (sequences R)
    (outputs_info (sitsot (zeros (f64 N))))
    (fn (r z) (sin (add z r)))))
  (output Z))
