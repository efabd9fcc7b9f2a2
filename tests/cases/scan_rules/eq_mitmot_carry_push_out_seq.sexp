; neg_mitmot_push_out_seq_whole with a tape of in taps (0 1), out tap (1)
; whose write does not read slot 0: as a carry (scan-mitmot-to-carry) the
; tape's rows are row 0 and a term of the sequences, which
; scan-push-out-seq computes for all steps; no loop is left.
; dims: T=5 N=2
; scans_after: 0
; fires: scan-mitmot-to-carry scan-push-out-seq
(program eq_mitmot_carry_push_out_seq
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let (R Y) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (nitsot))
    (fn (x g0 g1) (outputs (add g1 (exp x)) (exp x)))))
  (output R Y))
