; The gradient of a categorical HMM's log-likelihood with integer
; observations taking the emission column per step (take inside the
; loop body: its VJP, an inc_take, runs in the backward loop) with
; respect to the transition and emission log-potentials and the start.
; dims: T=6
; wrt: LA LB a0
(program loop_hmm_take
  (input LA (f64 3 3))
  (input LB (f64 3 4))
  (input a0 (f64 3))
  (input O (i64 T))
  (let obs (mod (add O 100) 4))
  (let (A) (scan (sequences obs) (outputs_info (sitsot a0)) (non_sequences LA LB)
    (fn (o a la lb)
      (outputs (add (logsumexp (add (expand_dims a 1) la) 0) (take (log_softmax lb 1) o 1))))))
  (let L (logsumexp (index A -1)))
  (let (gA gB g0) (grad L LA LB a0))
  (output L gA gB g0))
