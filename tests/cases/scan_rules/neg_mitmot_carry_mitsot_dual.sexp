; The dual of a mit-sot of depth 2: a mitmot with in taps (0 1 2) and out
; taps (1 2). Its slot t + 1 is written twice (by steps t - 1 and t), so it
; is not a sequence plus a carry: scan-mitmot-to-carry does not fire and
; the tape stays.
; dims: T=5 N=2
; scans_after: 1
; parts_after: mitmots=1
; not_fires: scan-mitmot-to-carry
(program neg_mitmot_carry_mitsot_dual
  (input A (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let Tp (scan
    (sequences A)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)))
    (go_backwards)
    (fn (a c0 c1 c2) (outputs (add c1 (mul a c0)) (add c2 (mul 0.5 (tanh c0)))))))
  (output (index Tp -1) (sum Tp 0)))
