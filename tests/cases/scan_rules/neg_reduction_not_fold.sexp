; scan-to-reduction / scan-to-cumulative must not fire on a recurrence that
; is not a running fold: s_t = 0.5 s_{t-1} + x_t (the state is scaled),
; read at its end and at every step. It is a linear recurrence, which
; scan-to-linrec makes one linrec op.
; dims: T=6 N=3
; scans_after: 0
; fires: scan-to-linrec
; not_fires: scan-to-reduction scan-to-cumulative
(program neg_reduction_not_fold
  (input X (f64 T N))
  (input s0 (f64 N))
  (let S (scan (sequences X) (outputs_info (sitsot s0))
    (fn (x s) (add (mul s 0.5) x))))
  (output S (index S -1)))
