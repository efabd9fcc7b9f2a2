; A nested loop that reads only the outer loop's non-sequences is the same
; at every outer step; eqscan's push-out rules do not rebuild loops outside
; (the vectorizer leaves nested scans alone), so it stays inside. The
; values must be right.
; dims: T=5 N=3
; scans_after: 2
(program neg_nested_invariant_inner
  (input x (f64 T))
  (input w (f64 N))
  (let S (scan (sequences x) (outputs_info (sitsot 0.0)) (non_sequences w)
    (fn (xt s ww)
      (let R (scan (sequences ww) (outputs_info (sitsot 0.0))
        (fn (e r) (tanh (add (mul r 0.5) e)))))
      (tanh (add (mul s (index R -1)) xt)))))
  (output S))
