; A GARCH(1,1) variance recurrence s_t = omega + alpha r_{t-1}^2 + beta
; s_{t-1}, with a per-step log-likelihood term that reads the new state:
; the state becomes one linrec (the factor beta the same at every step,
; unstacked) and the term is computed from its result; no loop is left.
; dims: T=7
; scans_after: 0
; fires: scan-to-linrec
(program eq_to_linrec_garch
  (input r (f64 T))
  (input omega0 (f64))
  (input alpha0 (f64))
  (input beta0 (f64))
  (let omega (add 0.1 (mul omega0 omega0)))
  (let alpha (mul 0.3 (sigmoid alpha0)))
  (let beta (mul 0.6 (sigmoid beta0)))
  (let (S ell) (scan
    (sequences (r (taps -1 0)))
    (outputs_info (sitsot (div omega (sub (sub 1.0 alpha) beta))) (nitsot))
    (non_sequences omega alpha beta)
    (fn (r_prev r_t s_prev om al be)
      (let s (add (add om (mul al (mul r_prev r_prev))) (mul be s_prev)))
      (outputs s (mul -0.5 (add (log s) (div (mul r_t r_t) s)))))))
  (output S (sum ell)))
