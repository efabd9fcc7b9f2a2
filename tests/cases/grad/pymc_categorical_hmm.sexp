; A categorical HMM's log-likelihood as PyMC-style models write it: the
; start, transition and emission probabilities as log_softmax of free
; parameters, integer observations indexing the emission matrix (one
; take of its columns for all steps), the forward pass in log space
; (logsumexp per step); the log-likelihood and its gradient with respect
; to the free parameters, against finite differences and against JAX
; (tests/jax_models.py, lax.scan) within 1e-12 relative.
; dims: T=60 K=3 M=4
; wrt: TA TB a0
; reference: jax
; rtol: 1e-12
(program pymc_categorical_hmm
  (input TA (f64 K K))
  (input TB (f64 K M))
  (input a0 (f64 K))
  (input O (i64 T))
  (let obs (mod O 4))
  (let LA (log_softmax TA 1))
  (let LB (log_softmax TB 1))
  (let E (take (transpose LB) obs))
  (let A (scan (sequences (slice E 1 none 1)) (outputs_info (sitsot (add (log_softmax a0 0) (index E 0)))) (non_sequences LA)
    (fn (e a la)
      (add (logsumexp (add (expand_dims a 1) la) 0) e))))
  (let L (logsumexp (index A -1)))
  (let (gA gB g0) (grad L TA TB a0))
  (output L gA gB g0))
