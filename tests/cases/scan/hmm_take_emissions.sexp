; A categorical HMM's forward pass with integer observations indexing the
; emission matrix: per step, the log-emission column of the observed
; symbol (take of the log emissions along axis 1), then logsumexp over
; the previous state; and the whole emission table taken at once outside
; the loop (a T x S matrix), which must agree.
; dims: T=6 S=3 V=4
(program hmm_take_emissions
  (input LA (f64 S S))
  (input LB (f64 S V))
  (input a0 (f64 S))
  (input O (i64 T))
  (let obs (mod (add O 100) 4))
  (let (A) (scan (sequences obs) (outputs_info (sitsot a0)) (non_sequences LA LB)
    (fn (o a la lb)
      (outputs (add (logsumexp (add (expand_dims a 1) la) 0) (take lb o 1))))))
  (let E (take (transpose LB) obs))
  (output A E (logsumexp (index A -1))))
