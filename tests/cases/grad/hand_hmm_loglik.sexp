; The gradient of an HMM's log-likelihood (the forward algorithm in log
; space, logsumexp written max-shifted) with respect to the transition
; logits, the emission means and the initial logits: what a sampler
; needs. Optimized, the forward loop's logsumexp becomes logmatmulexp
; while the backward loop reads the forward states; checked against
; finite differences in every mode.
; dims: T=6 N=3
; scale: y=3.0 mu=2.0 A_logits=2.0 pi_logits=1.0
; wrt: A_logits mu pi_logits
(program hand_hmm_loglik
  (input y (f64 T))
  (input mu (f64 N))
  (input pi_logits (f64 N))
  (input A_logits (f64 N N))
  (let pi_max (max pi_logits))
  (let log_pi (sub pi_logits (add pi_max (log (sum (exp (sub pi_logits pi_max)))))))
  (let A_max (expand_dims (max A_logits 1) 1))
  (let log_A (sub A_logits (add A_max (expand_dims (log (sum (exp (sub A_logits A_max)) 1)) 1))))
  (let d (sub (expand_dims y 1) (expand_dims mu 0)))
  (let log_b (mul -0.5 (add 1.8378770664093453 (mul d d))))
  (let alpha0 (add log_pi (index log_b 0)))
  (let alphas (scan
    (sequences (slice log_b 1 none))
    (outputs_info (sitsot alpha0))
    (non_sequences log_A)
    (fn (lb_t prev A)
      (let M (add (expand_dims prev 1) A))
      (let m (max M 0))
      (add lb_t (add m (log (sum (exp (sub M (expand_dims m 0))) 0)))))))
  (let last (index alphas -1))
  (let last_max (max last))
  (let L (add last_max (log (sum (exp (sub last last_max))))))
  (let (gA gmu gpi) (grad L A_logits mu pi_logits))
  (output L gA gmu gpi))
