; A Kalman filter for a local linear trend (Durbin and Koopman, ch. 3),
; written from the textbook equations (medium: T=20000). The state
; x = (level, slope) moves by F = [[1, 1], [0, 1]] with noise covariance
; Q = diag(exp(log_q)); each scalar observation is y_t = H x_t + noise with
; H = (1, 0) and variance R = exp(log_r); x_0 = x0, P_0 = I. Each step:
;   predict  x = F x,  P = F P Fᵀ + Q
;   update   v = y_t − H x,  S = H P Hᵀ + R,  K = P Hᵀ / S,
;            x = x + K v,    P = (I − K H) P
; Outputs: the filtered means (T, 2) and the Gaussian log-likelihood
; Σ_t −0.5 (log 2π + log S_t + v_t² / S_t).
; The data rule fills y with a sine of amplitude 2 (scale y=4); log_q and
; log_r stay at scale 1 (variances between 0.7 and 1.3).
; dims: T=200
; scale: y=4.0
(program kalman
  (input y (f64 T))
  (input x0 (f64 2))
  (input log_q (f64 2))
  (input log_r (f64))
  (let F (tensor (f64 2 2) 1.0 1.0 0.0 1.0))
  (let H (tensor (f64 2) 1.0 0.0))
  (let I (tensor (f64 2 2) 1.0 0.0 0.0 1.0))
  (let Q (mul I (exp log_q)))                    ; diag(exp(log_q))
  (let R (exp log_r))
  (let (X P ll) (scan
    (sequences y)
    (outputs_info (sitsot x0) (sitsot I) (nitsot))
    (fn (y_t x_prev P_prev)
      (let x_pred (dot F x_prev))
      (let P_pred (add (dot (dot F P_prev) (transpose F)) Q))
      (let v (sub y_t (dot H x_pred)))
      (let PHt (dot P_pred H))
      (let S (add (dot H PHt) R))
      (let K (div PHt S))
      (let KH (mul (expand_dims K 1) (expand_dims H 0)))   ; the outer product K H
      (let x_new (add x_pred (mul K v)))
      (let P_new (dot (sub I KH) P_pred))
      (outputs x_new P_new
        (mul -0.5 (add (add (log (mul 2.0 3.141592653589793)) (log S)) (div (mul v v) S)))))))
  (output X (sum ll)))
