; As eq_to_linrec_recompute_backwards, but the second loop's update has
; another factor (beta + 0.125) than the recurrence's: it is not a
; recomputation of the state, so it must keep its own arithmetic (the
; outputs are checked against the loops as written).
; dims: T=7
; scans_after: 0
; fires: scan-to-linrec
(program neg_to_linrec_recompute_other_factor
  (input r (f64 T))
  (input s0 (f64))
  (input c (f64))
  (let beta (mul 0.6 (sigmoid c)))
  (let beta2 (add beta 0.125))
  (let h0 (add 1.0 (mul s0 s0)))
  (let (S) (scan
    (sequences r)
    (outputs_info (sitsot h0))
    (non_sequences beta)
    (fn (x s_prev be)
      (outputs (add (mul x x) (mul be s_prev))))))
  (let (L) (scan
    (sequences r ((concat 0 (expand_dims h0 0) S) (taps -1)))
    (outputs_info (nitsot))
    (non_sequences beta2)
    (go_backwards)
    (fn (x s_prev be)
      (outputs (log (add (mul x x) (mul be s_prev)))))))
  (output L (sum S)))
