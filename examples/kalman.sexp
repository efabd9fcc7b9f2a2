; A multivariate Kalman filter written as pymc-extras' StandardFilter
; writes its step (Durbin and Koopman, ch. 4), with solve and slogdet in
; each step: 4 hidden states, 2 observed series, T observations. Inputs:
; the transition Tm (4, 4), the design Z (2, 4), the selection R (4, 4),
; the state noise covariance Q (4, 4), the observation noise covariance
; H (2, 2), the initial mean x0 and covariance P0, and the observations
; Y (T, 2). Each step updates with observation y, then predicts:
;   v = y − Z a,  F = Z P Zᵀ + H,  K = P Zᵀ F⁻¹ (a solve),
;   a|t = a + K v,  P|t = (I − K Z) P (I − K Z)ᵀ + K H Kᵀ (Joseph form),
;   ll = −½ (2 log 2π + log|F| + vᵀ F⁻¹ v) (slogdet, a solve),
;   a' = Tm a|t,  P' = Tm P|t Tmᵀ + R Q Rᵀ.
; Outputs: the log-likelihood Σ ll and its gradient with respect to the
; transition matrix and the two noise covariances.
; benches/kalman_jax.py makes valid inputs (stable Tm, SPD Q, H and P0),
; checks the outputs against JAX and times both.
(program kalman
  (input Tm (f64 4 4))
  (input Z (f64 2 4))
  (input R (f64 4 4))
  (input Q (f64 4 4))
  (input H (f64 2 2))
  (input x0 (f64 4))
  (input P0 (f64 4 4))
  (input Y (f64 T 2))
  (let I4 (eye (f64 4 4)))
  (let RQR (matmul R (matmul Q (transpose R))))
  (let (A P LL) (scan
    (sequences Y)
    (outputs_info (sitsot x0) (sitsot P0) (nitsot))
    (non_sequences Tm Z H RQR I4)
    (fn (y a p tm z h rqr eye)
      (let v (sub y (matmul z a)))
      (let PZT (matmul p (transpose z)))
      (let F (add (matmul z PZT) h))
      (let K (transpose (solve F (transpose PZT))))
      (let IKZ (sub eye (matmul K z)))
      (let af (add a (matmul K v)))
      (let Pf (add (matmul IKZ (matmul p (transpose IKZ))) (matmul K (matmul h (transpose K)))))
      (let (sign logdet) (slogdet F))
      (let ll (mul -0.5 (add (add 3.6757541328186907 logdet) (dot v (solve F v)))))
      (outputs (matmul tm af) (add (matmul tm (matmul Pf (transpose tm))) rqr) ll))))
  (let loglik (sum LL))
  (let (gTm gQ gH) (grad loglik Tm Q H))
  (output loglik gTm gQ gH))
