; The garch_grad workload of ../shared/bench/WORKLOADS.md ("Gradient
; workloads") (medium: T=100000): a GARCH(1,1) variance recurrence
; s2_t = omega + alpha r_{t-1}^2 + beta s2_{t-1} from the stationary
; variance, a per-step log-likelihood term l_t = -0.5 (log s2_t + r_t^2 / s2_t),
; L = sum(l), and its gradients with respect to the unconstrained
; parameters w, a and bb (omega = 0.1 exp(w), alpha = 0.3 sigmoid(a),
; beta = 0.6 sigmoid(bb)).
(program garch_grad
  (input r (f64 T))
  (input w (f64))
  (input a (f64))
  (input bb (f64))
  (let omega (mul 0.1 (exp w)))
  (let alpha (mul 0.3 (sigmoid a)))
  (let beta (mul 0.6 (sigmoid bb)))
  (let s0 (div omega (sub (sub 1.0 alpha) beta)))
  (let (S2 ell) (scan
    (sequences (r (taps -1 0)))
    (outputs_info (sitsot s0) (nitsot))
    (non_sequences omega alpha beta)
    (fn (r_prev r_t s_prev om al be)
      (let s (add (add om (mul al (mul r_prev r_prev))) (mul be s_prev)))
      (outputs s (mul -0.5 (add (log s) (div (mul r_t r_t) s)))))))
  (let L (sum ell))
  (let (dw da dbb) (grad L w a bb))
  (output L dw da dbb))
