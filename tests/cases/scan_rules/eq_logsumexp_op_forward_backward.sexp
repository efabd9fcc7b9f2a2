; A log-space HMM's forward and backward steps written with the logsumexp
; op, as Stan and JAX users write them: logsumexp over axis 0 of
; alpha[:, None] + log A is (logmatmulexp alpha logA), and over axis 1 of
; log A + beta[None, :] it is (logmatmulexp beta (transpose logA)). A
; transition that is impossible (-inf: a whole column of the forward sum)
; and magnitudes in the thousands (exp overflows and underflows in most
; terms) leave every output the written program's: -inf where it is -inf,
; finite where it is finite.
; dims: T=8 N=5
; scale: lb=3000.0 L=4000.0 a0=1000.0
; scans_after: 1
; fires: logsumexp-op-logmatmulexp logsumexp-op-logmatmulexp-t
(program eq_logsumexp_op_forward_backward
  (input lb (f64 T N))
  (input L (f64 N N))
  (input a0 (f64 N))
  (let LA (where (gt (expand_dims (arange N) 0) 3) -inf L))
  (let alphas (scan
    (sequences lb)
    (outputs_info (sitsot a0))
    (non_sequences LA)
    (fn (lb_t prev A)
      (add lb_t (logsumexp (add (expand_dims prev 1) A) 0)))))
  (let betas (scan
    (sequences (slice lb none none -1))
    (outputs_info (sitsot a0))
    (non_sequences LA)
    (fn (lb_t next A)
      (logsumexp (add A (expand_dims (add lb_t next) 0)) 1))))
  (output alphas betas))
