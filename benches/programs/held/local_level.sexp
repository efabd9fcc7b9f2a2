; Held-out program (issue 40), not tuned for eqscan: the Kalman filter
; log-likelihood of the local level model (random walk plus noise)
; (medium: T=20000), as Durbin and Koopman, "Time Series Analysis by State
; Space Methods" (2nd ed., 2012), section 2.2, eq. (2.15) and section 7.2.1,
; write it, and as statsmodels' `UnobservedComponents(y, "llevel")` computes
; it (https://www.statsmodels.org/stable/generated/statsmodels.tsa.statespace.structural.UnobservedComponents.html):
;   y_t = α_t + ε_t,  ε_t ~ N(0, σ²_ε);   α_{t+1} = α_t + η_t,  η_t ~ N(0, σ²_η)
;   v_t = y_t − a_t,  F_t = P_t + σ²_ε,  K_t = P_t / F_t
;   a_{t+1} = a_t + K_t v_t,  P_{t+1} = P_t (1 − K_t) + σ²_η
;   log L = −Σ_{t≥2} 0.5 (log 2π + log F_t + v_t² / F_t)
; Kept: the variances as exp of the unconstrained parameters a fitter moves,
; a_1 an input and P_1 = 1e6 (statsmodels' approximate diffuse
; initialisation), the first observation's term left out of the sum
; (statsmodels' `loglikelihood_burn` of one diffuse state).
; Outputs: the one-step predictions a_{t+1} (T) and log L.
; Data rule: y at scale 4 (amplitude 2); `; extreme:` y at scale 1e8
; (amplitude 5e7) and the log-variances at scale 60 (σ²_ε = e^15.5,
; σ²_η = e^-20.6).
; dims: T=40
; scale: y=4.0
; extreme: y=1e8 log_var_eps=60.0 log_var_eta=60.0
(program local_level
  (input y (f64 T))
  (input a1 (f64))
  (input log_var_eps (f64))
  (input log_var_eta (f64))
  (let var_eps (exp log_var_eps))
  (let var_eta (exp log_var_eta))
  (let (a P ll) (scan
    (sequences y)
    (outputs_info (sitsot a1) (sitsot 1e6) (nitsot))
    (non_sequences var_eps var_eta)
    (fn (y_t a_t P_t h q)
      (let v (sub y_t a_t))
      (let F (add P_t h))
      (let K (div P_t F))
      (outputs
        (add a_t (mul K v))
        (add (mul P_t (sub 1.0 K)) q)
        (mul -0.5 (add (add (log (mul 2.0 3.141592653589793)) (log F)) (div (mul v v) F)))))))
  (output a (sum (slice ll 1 none))))
