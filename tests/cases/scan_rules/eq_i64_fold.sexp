; An i64 running sum, read at its end and at every step: sum and cumsum
; keep the dtype.
; dims: T=6 N=3
; scans_after: 0
; fires: scan-to-reduction scan-to-cumulative
(program eq_i64_fold
  (input K (i64 T N))
  (input k0 (i64 N))
  (let S (scan (sequences K) (outputs_info (sitsot k0))
    (fn (k s) (add s (mul k 2)))))
  (output S (index S -1)))
