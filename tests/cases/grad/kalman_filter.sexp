; The multivariate Kalman filter of examples/kalman.sexp (solve and
; slogdet in each step) at T = 6: the log-likelihood's gradient with
; respect to the transition Tm and the noise covariances Q and H against
; finite differences. The data rule's inputs are made a valid model in
; the program: Tm scaled to entries below 0.2 (stable), Q and H shifted
; by a diagonal (F stays far from singular), P0 = I.
; wrt: Tm Qin Hin
; dims: T=6
; scale: Tm=0.4 Qin=0.2 Hin=0.2 Y=2.0
(program kalman_filter
  (input Tm (f64 4 4))
  (input Z (f64 2 4))
  (input R (f64 4 4))
  (input Qin (f64 4 4))
  (input Hin (f64 2 2))
  (input x0 (f64 4))
  (input Y (f64 T 2))
  (let I4 (tensor (f64 4 4) 1.0 0.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 0.0 1.0))
  (let Q (add Qin (mul 0.5 I4)))
  (let H (add Hin (mul 0.5 (tensor (f64 2 2) 1.0 0.0 0.0 1.0))))
  (let P0 I4)
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
  (let (gTm gQ gH) (grad loglik Tm Qin Hin))
  (output loglik gTm gQ gH))
