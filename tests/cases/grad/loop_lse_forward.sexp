; The log-space forward pass of tests/cases/scan/lse_forward.sexp, its
; log-likelihood logsumexp(alpha_T) differentiated with respect to the
; emissions X, the transition LA and the first alpha, against finite
; differences: the backward loop's step differentiates logsumexp
; (softmax weights) at every step.
; wrt: X LA a0
; dims: T=6 K=3
(program loop_lse_forward
  (input X (f64 T K))
  (input LA (f64 K K))
  (input a0 (f64 K))
  (let A (scan (sequences X) (outputs_info (sitsot a0)) (non_sequences LA)
    (fn (x a la) (add (logsumexp (add (expand_dims a 1) la) 0) x))))
  (let L (logsumexp (index A -1)))
  (let (gX gLA ga0) (grad L X LA a0))
  (output L gX gLA ga0))
