; logsumexp over axis 1 of alpha[:, None] + B is not the log-space
; product of alpha and B (it sums over B's columns): the rule must not
; fire, and the result is the written one.
; dims: T=6 N=4
; scale: lb=2.0 L=2.0
; scans_after: 1
; not_fires: logsumexp-logmatmulexp
(program neg_logsumexp_other_axis
  (input lb (f64 T N))
  (input L (f64 N N))
  (input a0 (f64 N))
  (let alphas (scan
    (sequences lb)
    (outputs_info (sitsot a0))
    (non_sequences L)
    (fn (lb_t prev A)
      (let M (add (expand_dims prev 1) A))
      (let m (max M 1))
      (add lb_t (add m (log (sum (exp (sub M (expand_dims m 1))) 1)))))))
  (output alphas))
