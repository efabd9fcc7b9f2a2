; A recurrence s_t = x_t^2 + beta s_{t-1}, and a second loop (forwards)
; that recomputes each s_t from the saved trace (s_{t-1} read
; as (concat s0 S) at tap -1) to
; take its log: once the first loop is a linrec, the recomputation reads
; the linrec's result instead of computing the update again
; (the snapshot shows (log LINREC)).
; dims: T=7
; scans_after: 0
; fires: scan-to-linrec
(program eq_to_linrec_recompute_forward
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
    (sequences r ((concat 0 (expand_dims h0 0) S) (taps -1)))
    (outputs_info (nitsot))
    (non_sequences beta)
    (fn (x s_prev be)
      (outputs (log (add (mul x x) (mul be s_prev)))))))
  (output L (sum S)))
