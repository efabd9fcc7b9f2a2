; The forward pass of K hidden Markov models at once (a batch of
; sequences): the max-shifted logsumexp over axis 1 of
; alpha[:, :, None] + log A, alpha (K, N), becomes (logmatmulexp alpha
; logA), a row per sequence. Extreme scales: exp(log A) under- and
; overflows in most columns, which take the max-shifted form.
; dims: T=6 K=3 N=4
; scale: lb=2.0 L=3000.0 a0=500.0
; scans_after: 1
; fires: logsumexp-logmatmulexp-rows
(program eq_logsumexp_logmatmulexp_rows
  (input lb (f64 T K N))
  (input L (f64 N N))
  (input a0 (f64 K N))
  (let alphas (scan
    (sequences lb)
    (outputs_info (sitsot a0))
    (non_sequences L)
    (fn (lb_t prev A)
      (let M (add (expand_dims prev 2) A))
      (let m (max M 1))
      (add lb_t (add m (log (sum (exp (sub M (expand_dims m 1))) 1)))))))
  (output alphas))
