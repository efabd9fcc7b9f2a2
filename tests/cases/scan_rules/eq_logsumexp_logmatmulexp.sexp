; The forward step of an HMM in log space written with the max-shifted
; logsumexp over axis 0 of alpha[:, None] + log A becomes (logmatmulexp
; alpha logA); the loop stays (a true recurrence).
; dims: T=8 N=5
; scale: lb=3.0 L=2.0
; scans_after: 1
; fires: logsumexp-logmatmulexp
(program eq_logsumexp_logmatmulexp
  (input lb (f64 T N))
  (input L (f64 N N))
  (input a0 (f64 N))
  (let alphas (scan
    (sequences lb)
    (outputs_info (sitsot a0))
    (non_sequences L)
    (fn (lb_t prev A)
      (let M (add (expand_dims prev 1) A))
      (let m (max M 0))
      (add lb_t (add m (log (sum (exp (sub M (expand_dims m 0))) 0)))))))
  (output alphas))
