; Held-out program (issue 40), not tuned for eqscan: the forward-backward
; algorithm of a categorical hidden Markov model with integer observations
; (medium: T=4000 K=32 V=50), in log space.
; Source: the Stan User's Guide, "Hidden Markov models" (the forward
; algorithm with `log_sum_exp` over the previous state and the emission
; looked up by the observed symbol, `log(phi[k, w[t]])`),
; https://mc-stan.org/docs/stan-users-guide/hmms.html, with the backward
; pass and the posterior marginals of Rabiner (1989), eqs. 24-27, as Stan's
; `hmm_hidden_state_prob` computes them. Kept: K states, V symbols, the
; initial distribution, the rows of the transition matrix and of the
; emission matrix each a softmax of free logits (a sampler's unconstrained
; simplexes), the emission column picked by `take` with the step's symbol
; inside the loop, logsumexp in both passes:
;   log alpha_0    = log pi + log B[:, y_0]
;   log alpha_t[j] = log B[j, y_t] + logsumexp_i (log alpha_{t-1}[i] + log A[i, j])
;   log beta_{T-1} = 0
;   log beta_t[i]  = logsumexp_j (log A[i, j] + log B[j, y_{t+1}] + log beta_{t+1}[j])
;   log p(y)       = logsumexp_j log alpha_{T-1}[j]
;   gamma_t[k]     = exp(log alpha_t[k] + log beta_t[k] − log p(y))
; Outputs: log p(y) and the posterior marginals gamma (T, K).
; Not kept: Stan's data are 1-based symbols; the data rule's integers lie
; in [−5s, 5s], so `(mod obs V)` puts them in [0, V) as a user's data are.
; The data rule: symbols at scale 10 (in [−50, 50] before mod), logits at
; scale 2 (amplitude 1); `; extreme:` scales the logits to amplitude 100
; (transition and emission probabilities down to e^-175: products of a few
; underflow outside log space).
; dims: T=60 K=5 V=7
; scale: obs=10.0 pi_logits=2.0 A_logits=2.0 B_logits=2.0
; extreme: obs=10.0 pi_logits=200.0 A_logits=200.0 B_logits=200.0
(program hmm_fb_categorical
  (input obs (i64 T))
  (input pi_logits (f64 K))
  (input A_logits (f64 K K))
  (input B_logits (f64 K V))
  (let y (mod obs V))
  (let log_pi (log_softmax pi_logits 0))
  (let log_A (log_softmax A_logits 1))
  (let log_B (log_softmax B_logits 1))
  ; forward pass
  (let alpha0 (add log_pi (take log_B (index y 0) 1)))
  (let alphas (scan
    (sequences (slice y 1 none))
    (outputs_info (sitsot alpha0))
    (non_sequences log_A log_B)
    (fn (y_t alpha_prev lA lB)
      (add (take lB y_t 1)
        (logsumexp (add (expand_dims alpha_prev 1) lA) 0)))))
  (let log_alpha (concat 0 (expand_dims alpha0 0) alphas))
  (let log_lik (logsumexp (index log_alpha -1)))
  ; backward pass: from t = T-2 down to 0, reading y_{t+1}
  (let betas (scan
    (sequences (slice y 1 none))
    (outputs_info (sitsot (zeros (f64 K))))
    (non_sequences log_A log_B)
    (go_backwards)
    (fn (y_next beta_next lA lB)
      (logsumexp (add lA (expand_dims (add (take lB y_next 1) beta_next) 0)) 1))))
  ; the loop's outputs run from t = T-2 down to 0: flip them, append beta_{T-1} = 0
  (let log_beta (concat 0 (flip betas) (zeros (f64 1 K))))
  (let gamma (exp (sub (add log_alpha log_beta) log_lik)))
  (output log_lik gamma))
