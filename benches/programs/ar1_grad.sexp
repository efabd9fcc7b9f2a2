; The ar1_grad workload of ../shared/bench/WORKLOADS.md ("Gradient
; workloads") (medium: T=200000): the AR(1) residuals
; e_t = x_t - c - phi x_{t-1} as a scan over x with taps (-1 0), the
; Gaussian log-likelihood L = sum(-0.5 e^2 exp(-2 log_sigma) - log_sigma),
; and its gradients with respect to c, phi and log_sigma.
(program ar1_grad
  (input x (f64 T))
  (input c (f64))
  (input phi (f64))
  (input log_sigma (f64))
  (let E (scan
    (sequences (x (taps -1 0)))
    (non_sequences c phi)
    (fn (x_prev x_t cc ph) (sub (sub x_t cc) (mul ph x_prev)))))
  (let L (sum (sub (mul (mul -0.5 (mul E E)) (exp (mul -2.0 log_sigma))) log_sigma)))
  (let (dc dphi dlog_sigma) (grad L c phi log_sigma))
  (output L dc dphi dlog_sigma))
