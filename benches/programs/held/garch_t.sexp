; Held-out program (issue 40), not tuned for eqscan: the log-likelihood of a
; zero-mean GARCH(1,1) with standardized Student's t innovations
; (medium: T=20000), as the `arch` package computes it
; (github.com/bashtage/arch: `arch.univariate.volatility.GARCH` with
; p = q = 1 and its default backcast, and
; `arch.univariate.distribution.StudentsT.loglikelihood`):
;   backcast = Σ_{i<τ} w_i r_i²,  w_i = 0.94^i / Σ_j 0.94^j,  τ = min(75, T)
;   σ²_0 = ω + α backcast + β backcast
;   σ²_t = ω + α r²_{t-1} + β σ²_{t-1}                 (the loop)
;   ℓ_t = lnΓ((ν+1)/2) − lnΓ(ν/2) − 0.5 log(π (ν − 2)) − 0.5 log σ²_t
;         − (ν+1)/2 log(1 + r²_t / (σ²_t (ν − 2)))
; Kept: arch's recursion and likelihood; the loop gives the variances and
; the likelihood is summed after it, as arch does. The parameters are the
; unconstrained ones a sampler or optimizer moves (arch bounds them
; instead): ω = exp(w), α = logistic(a), β = logistic(bb), ν = 2 + exp(log_nu_m2);
; τ = 75 (the programs run with T ≥ 75).
; Outputs: the conditional variances σ² (T) and Σ ℓ_t.
; Data rule: returns at scale 4 (amplitude 2); `; extreme:` returns at
; scale 1e6 (amplitude 5e5) and w at scale 40 (ω = e^19.3; variances from
; 3e10 to 2e11).
; dims: T=100
; scale: r=4.0
; extreme: r=1e6 w=40.0
(program garch_t
  (input r (f64 T))
  (input w (f64))
  (input a (f64))
  (input bb (f64))
  (input log_nu_m2 (f64))
  (let omega (exp w))
  (let alpha (sigmoid a))
  (let beta (sigmoid bb))
  (let nu (add 2.0 (exp log_nu_m2)))
  (let r2 (mul r r))
  (let weights (pow 0.94 (arange 75)))
  (let backcast (div (sum (mul weights (slice r2 0 75))) (sum weights)))
  ; the previous step's squared return: backcast for the first step
  (let r2_prev (concat 0 (expand_dims backcast 0) (slice r2 0 -1)))
  (let sigma2 (scan
    (sequences r2_prev)
    (outputs_info (sitsot backcast))
    (non_sequences omega alpha beta)
    (fn (r2_t s_prev om al be)
      (add (add om (mul al r2_t)) (mul be s_prev)))))
  (let c (sub (sub (gammaln (mul 0.5 (add nu 1.0))) (gammaln (mul 0.5 nu)))
              (mul 0.5 (log (mul 3.141592653589793 (sub nu 2.0))))))
  (let ll (sub (sub c (mul 0.5 (log sigma2)))
               (mul (mul 0.5 (add nu 1.0)) (log1p (div r2 (mul sigma2 (sub nu 2.0)))))))
  (output sigma2 (sum ll)))
