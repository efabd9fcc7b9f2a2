; A forward pass in log space, as an HMM's is written: alpha_t =
; logsumexp(alpha_{t-1}[:, None] + LA, axis 0) + x_t, over T steps
; (the logsumexp runs on the step tape as one instruction).
; dims: T=6 K=3
(program lse_forward
  (input X (f64 T K))
  (input LA (f64 K K))
  (input a0 (f64 K))
  (let A (scan (sequences X) (outputs_info (sitsot a0)) (non_sequences LA)
    (fn (x a la) (add (logsumexp (add (expand_dims a 1) la) 0) x))))
  (output A (logsumexp (index A -1))))
