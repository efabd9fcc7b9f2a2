; The forward algorithm of an HMM in log space written with
; logmatmulexp: alpha_t = lb_t + logmatmulexp(alpha_{t-1}, logA), over
; the rows of lb, with log A a log-softmax of free logits (a loop
; invariant: exp(log A) once per call on the step tape).
; dims: T=7 N=4
; scale: lb=3.0 L=2.0
(program logspace_forward
  (input lb (f64 T N))
  (input L (f64 N N))
  (input a0 (f64 N))
  (let lmax (expand_dims (max L 1) 1))
  (let logA (sub L (add lmax (expand_dims (log (sum (exp (sub L lmax)) 1)) 1))))
  (let alphas (scan
    (sequences lb)
    (outputs_info (sitsot a0))
    (non_sequences logA)
    (fn (lb_t prev A)
      (add lb_t (logmatmulexp prev A)))))
  (output alphas))
