; Held-out program (issue 40), not tuned for eqscan: the log density of the
; basic stochastic-volatility model (medium: T=20000) as the Stan User's
; Guide writes it ("Time-series models", "Stochastic volatility models",
; the non-centered form; https://mc-stan.org/docs/stan-users-guide/time-series.html):
;   h     = h_std σ;  h_1 = h_1 / sqrt(1 − φ²);  h = h + μ
;   h_t   = h_t + φ (h_{t-1} − μ)          for t = 2..T (the loop)
;   y_t ~ normal(0, exp(h_t / 2)),  h_std ~ std_normal(),
;   φ ~ uniform(−1, 1),  σ ~ cauchy(0, 5),  μ ~ cauchy(0, 10)
; Kept: the model block's densities, normalised (as log_prob gives them),
; at the unconstrained parameters a sampler moves (Stan's transforms and
; their log Jacobians: φ = 2 logistic(φ_u) − 1 with log 2 + log
; logistic(φ_u) + log logistic(−φ_u), σ = exp(log_σ) with log_σ), the
; loop written with the latent state as its carry:
;   h_t = μ + φ (h_{t-1} − μ) + σ h_std_t,   h_0 = μ + σ h_std_0 / sqrt(1 − φ²)
; Outputs: the log-volatilities h (T) and the log density.
; Data rule: y (returns) at scale 2, h_std at scale 2; `; extreme:` puts y
; at scale 1e4 (returns up to 5e3) and h_std at scale 40 (log-volatilities
; from −11 to 13: y² exp(−h) up to 1e12).
; dims: T=50
; scale: y=2.0 h_std=2.0
; extreme: y=1e4 h_std=40.0
(program stochvol_filter
  (input y (f64 T))
  (input h_std (f64 T))
  (input mu (f64))
  (input phi_u (f64))
  (input log_sigma (f64))
  (let phi (sub (mul 2.0 (sigmoid phi_u)) 1.0))
  (let sigma (exp log_sigma))
  (let h0 (add mu (div (mul sigma (index h_std 0)) (sqrt (sub 1.0 (mul phi phi))))))
  (let hs (scan
    (sequences (slice h_std 1 none))
    (outputs_info (sitsot h0))
    (non_sequences mu phi sigma)
    (fn (z_t h_prev mu_ phi_ sigma_)
      (add (add mu_ (mul phi_ (sub h_prev mu_))) (mul sigma_ z_t)))))
  (let h (concat 0 (expand_dims h0 0) hs))
  (let log_2pi (log (mul 2.0 3.141592653589793)))
  ; y_t ~ normal(0, exp(h_t / 2)): −0.5 log 2π − h_t / 2 − 0.5 y_t² exp(−h_t)
  (let lp_y (sum (sub (mul -0.5 (add log_2pi h)) (mul (mul 0.5 (mul y y)) (exp (neg h))))))
  (let lp_hstd (sum (mul -0.5 (add log_2pi (mul h_std h_std)))))
  (let pi_ 3.141592653589793)
  (let lp_sigma (neg (log (mul (mul pi_ 5.0) (add 1.0 (mul (div sigma 5.0) (div sigma 5.0)))))))
  (let lp_mu (neg (log (mul (mul pi_ 10.0) (add 1.0 (mul (div mu 10.0) (div mu 10.0)))))))
  (let lp_phi (neg (log 2.0)))
  (let log_jac (add (add (log 2.0) (neg (softplus (neg phi_u)))) (add (neg (softplus phi_u)) log_sigma)))
  (output h (add (add (add lp_y lp_hstd) (add lp_sigma lp_mu)) (add lp_phi log_jac))))
