; A mitmot (in taps 0 1, out tap 1) over n_steps K with a tape of T + 1
; slots: the slots no step reaches (T - K of them) are not a known count,
; so the tape's tail cannot be written and scan-mitmot-to-carry does not
; fire. Run at K = 3 < T = 5 (the untouched slots must come back as they
; were).
; dims: T=5 K=3 N=2
; scans_after: 1
; parts_after: mitmots=1
; not_fires: scan-mitmot-to-carry
(program neg_mitmot_carry_unknown_tail
  (input A (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let Tp (scan
    (sequences A)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)))
    (n_steps K)
    (fn (a c0 c1) (add c1 (mul a c0)))))
  (output Tp))
