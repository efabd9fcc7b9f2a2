; Extreme magnitudes for logsumexp -> logmatmulexp: entries of L up to
; ±2000, so exp(L) underflows to 0 and overflows to inf in most columns,
; and the state grows to thousands. The kernel's scaled sum leaves the
; normal range there and those columns take the max-shifted form: every
; output equals the written program's, finite where it is finite.
; dims: T=8 N=5
; scale: lb=3000.0 L=4000.0 a0=1000.0
; scans_after: 1
; fires: logsumexp-logmatmulexp
(program eq_logsumexp_logmatmulexp_extreme
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
