; scan-inline-constants where the constant non-sequence is read only by a
; nested loop (as its non-sequence): the nested loop's argument is
; re-scoped to the constant.
; dims: T=4 N=3
; scans_after: 2
(program eq_inline_into_nested
  (input X (f64 T N))
  (let c (fill (f64) 0.5))
  (let S (scan (sequences X) (outputs_info (sitsot 0.0)) (non_sequences c)
    (fn (row s cc)
      (let R (scan (sequences row) (outputs_info (sitsot s)) (non_sequences cc)
        (fn (e r k) (tanh (add (mul r k) e)))))
      (index R -1))))
  (output S))
