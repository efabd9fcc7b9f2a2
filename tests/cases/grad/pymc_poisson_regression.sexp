; A Poisson regression log-density as PyMC builds it: counts y ~
; Poisson(exp(X beta + a)), priors beta ~ Normal(0, 1) and a ~ Normal(0,
; 2), the Poisson log-pmf y log(mu) - mu - gammaln(y + 1) with integer
; counts; the log-density and its gradient with respect to beta and a,
; against finite differences and against JAX (the same model written in
; jax.numpy by tests/jax_models.py) within 1e-12 relative.
; dims: N=40 P=3
; wrt: beta a
; reference: jax
; rtol: 1e-12
(program pymc_poisson_regression
  (input X (f64 N P))
  (input Y (i64 N))
  (input beta (f64 P))
  (input a (f64))
  (let y (cast f64 (abs Y)))
  (let eta (add (dot X beta) a))
  (let loglik (sum (sub (sub (mul y eta) (exp eta)) (gammaln (add y 1.0)))))
  (let prior_beta (sum (sub (mul -0.5 (mul beta beta)) 0.9189385332046727)))
  (let prior_a (sub (sub (mul -0.5 (mul (div a 2.0) (div a 2.0))) 0.9189385332046727) (log 2.0)))
  (let L (add loglik (add prior_beta prior_a)))
  (let (gbeta ga) (grad L beta a))
  (output L gbeta ga))
