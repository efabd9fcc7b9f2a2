; The forward algorithm of a hidden Markov model in log space (Rabiner 1989,
; eqs. 19-21, with logs), written from the textbook definition
; (medium: T=4000 N=32): N states, Gaussian emissions of unit variance with
; means mu, a transition matrix and an initial distribution given by free
; logits (each row made a distribution by a stable log-softmax).
;   log alpha_0     = log pi + log b_0
;   log alpha_t[j]  = log b_t[j] + logsumexp_i (log alpha_{t-1}[i] + log A[i, j])
;   log p(y)        = logsumexp_j log alpha_{T-1}[j]
; with log b_t[j] = −0.5 (log 2π + (y_t − mu_j)²) and logsumexp in its
; max-subtracted form. Outputs: the log alphas (T, N) and log p(y).
; The data rule fills y and mu with sines of amplitude 2 (scale 4) and the
; logits with amplitude 1 (scale 2).
; dims: T=100 N=8
; scale: y=4.0 mu=4.0 pi_logits=2.0 A_logits=2.0
(program hmm_forward
  (input y (f64 T))
  (input mu (f64 N))
  (input pi_logits (f64 N))
  (input A_logits (f64 N N))
  ; log pi: a log-softmax of the initial logits
  (let pi_max (max pi_logits))
  (let log_pi (sub pi_logits
    (add pi_max (log (sum (exp (sub pi_logits pi_max)))))))
  ; log A: a log-softmax of each row of the transition logits
  (let A_max (expand_dims (max A_logits 1) 1))
  (let log_A (sub A_logits
    (add A_max (expand_dims (log (sum (exp (sub A_logits A_max)) 1)) 1))))
  ; log b_t[j]: the Gaussian log density of y_t under state j, (T, N)
  (let d (sub (expand_dims y 1) (expand_dims mu 0)))
  (let log_b (mul -0.5 (add (log (mul 2.0 3.141592653589793)) (mul d d))))
  (let alpha0 (add log_pi (index log_b 0)))
  (let alphas (scan
    (sequences (slice log_b 1 none))
    (outputs_info (sitsot alpha0))
    (fn (lb_t alpha_prev)
      ; M[i, j] = log alpha_{t-1}[i] + log A[i, j]
      (let M (add (expand_dims alpha_prev 1) log_A))
      (let m (max M 0))
      (add lb_t
        (add m (log (sum (exp (sub M (expand_dims m 0))) 0)))))))
  (let log_alpha (concat 0 (expand_dims alpha0 0) alphas))
  (let last (index alphas -1))
  (let last_max (max last))
  (output log_alpha
    (add last_max (log (sum (exp (sub last last_max)))))))
