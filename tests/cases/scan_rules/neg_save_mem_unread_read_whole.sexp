; The same filter with its covariance read after the loop (its sum over all
; steps): every step of P is needed, so P keeps them all.
; dims: T=7 N=2
; scans_after: 1
; not_fires: scan-save-mem-unread
(program neg_save_mem_unread_read_whole
  (input Y (f64 T N))
  (input x0 (f64 N))
  (input p0 (f64 N))
  (let (X P) (scan
    (sequences Y)
    (outputs_info (sitsot x0) (sitsot p0))
    (fn (y x p)
      (outputs
        (add x (mul (div p (add p 1.0)) (sub y x)))
        (add (mul 0.5 p) 0.1)))))
  (output X (sum P 0)))
