; neg_mitmot_merge with a tape of in taps (0 1), out tap (1): as a carry
; (scan-mitmot-to-carry) the mitmot loop is an ordinary loop, and
; scan-merge may merge it with the other; the cost model keeps what is
; cheaper. The tape's value must be unchanged. The carry's update is
; linear, so scan-to-linrec then takes that loop out: one loop is left.
; dims: T=5 N=2
; scans_after: 1
; fires: scan-mitmot-to-carry scan-merge
(program eq_mitmot_carry_merge
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)))
    (fn (x g0 g1) (add g1 (mul x g0)))))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot (zeros (f64 N))))
    (fn (x h) (tanh (add h x)))))
  (output R H))
