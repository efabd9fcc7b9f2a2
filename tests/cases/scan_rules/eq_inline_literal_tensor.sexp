; scan-inline-constants: a literal (non-uniform) tensor non-sequence may
; move into the body; nothing folds there, so it costs more per step and
; the loop keeps it as a non-sequence.
; dims: T=5
; scans_after: 1
; parts_after: nonseqs=1
; fires: scan-inline-constants
(program eq_inline_literal_tensor
  (input x (f64 T))
  (let c (tensor (f64 3) 1.0 -0.5 0.25))
  (let S (scan (sequences x) (outputs_info (sitsot (zeros (f64 3)))) (non_sequences c)
    (fn (xt s cc) (tanh (add (mul s cc) xt)))))
  (output S))
