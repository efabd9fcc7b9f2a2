; As eq_to_linrec_recompute_backwards, but the second loop applies the
; update to s_t (the trace at tap 0, one step late) rather than to
; s_{t-1}: its values are not the trace's, so it must keep its own
; arithmetic (the outputs are checked against the loops as written).
; dims: T=7
; scans_after: 0
; fires: scan-to-linrec
(program neg_to_linrec_recompute_misaligned
  (input r (f64 T))
  (input s0 (f64))
  (input c (f64))
  (let beta (mul 0.6 (sigmoid c)))
  (let h0 (add 1.0 (mul s0 s0)))
  (let (S) (scan
    (sequences r)
    (outputs_info (sitsot h0))
    (non_sequences beta)
    (fn (x s_prev be)
      (outputs (add (mul x x) (mul be s_prev))))))
  (let (L) (scan
    (sequences r S)
    (outputs_info (nitsot))
    (non_sequences beta)
    (go_backwards)
    (fn (x s_t be)
      (outputs (log (add (mul x x) (mul be s_t)))))))
  (output L (sum S)))
