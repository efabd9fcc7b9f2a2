; scan-inline-constants: a uniform constant non-sequence c = 3 moves into
; the body, where c*c - 8 folds to 1 and s*1 to s; the loop reads no
; non-sequence any more.
; dims: T=5
; scans_after: 1
; parts_after: nonseqs=0
; fires: scan-inline-constants
(program eq_inline_constant_folds
  (input x (f64 T))
  (let c (fill (f64 3) 3.0))
  (let S (scan (sequences x) (outputs_info (sitsot (zeros (f64 3)))) (non_sequences c)
    (fn (xt s cc) (tanh (add (mul s (sub (mul cc cc) 8.0)) xt)))))
  (output S))
