; Only the tape's last slot is read: the tape is never trimmed (its slots
; are not steps), so scan-save-mem does not fire. (A tape of in taps
; (0 1 2), out taps (1 2): scan-mitmot-to-carry leaves it a mitmot.)
; dims: T=5 N=2
; scans_after: 1
; parts_after: mitmots=1
; not_fires: scan-save-mem
(program neg_mitmot_save_mem
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)))
    (fn (x g0 g1 g2) (outputs (add g1 (mul x g0)) (sub g2 g0)))))
  (output (index R -1)))
