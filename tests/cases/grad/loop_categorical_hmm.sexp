; A categorical HMM's log-likelihood as PyMC writes it: the transition
; and emission matrices as log_softmax of free parameters (rows), the
; forward pass in log space over observations given as one-hot rows
; (Y), and dL/d(free parameters) against finite differences.
; wrt: TA TB a0
; dims: T=7 K=3 M=4
(program loop_categorical_hmm
  (input TA (f64 K K))
  (input TB (f64 K M))
  (input a0 (f64 K))
  (input Y (f64 T M))
  (let LA (log_softmax TA 1))
  (let LB (log_softmax TB 1))
  (let l0 (log_softmax a0 0))
  (let A (scan (sequences Y) (outputs_info (sitsot l0)) (non_sequences LA LB)
    (fn (y a la lb)
      (let emit (dot lb y))
      (add (logsumexp (add (expand_dims a 1) la) 0) emit))))
  (let L (logsumexp (index A -1)))
  (let (gA gB g0) (grad L TA TB a0))
  (output L gA gB g0))
