; A mixture log-likelihood per step as users spell it: the max-shifted
; logsumexp over all axes (m + log(sum(exp(x - m)))) and along axis 1,
; become (logsumexp x) and (logsumexp x 1); at a scale where exp
; overflows without the shift.
; dims: T=6 N=3
; scale: X=400.0
; scans_after: 0
; fires: logsumexp-def logsumexp-def-axis
(program eq_logsumexp_spelled
  (input X (f64 T N))
  (input W (f64 N N))
  (let (A B) (scan (sequences X) (outputs_info (nitsot) (nitsot)) (non_sequences W)
    (fn (x w)
      (let s (add w (expand_dims x 0)))
      (let m (max s))
      (let m1 (max s 1))
      (outputs (add m (log (sum (exp (sub s m)))))
               (add m1 (log (sum (exp (sub s (expand_dims m1 1))) 1)))))))
  (output A B))
