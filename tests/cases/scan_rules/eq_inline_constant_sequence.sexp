; scan-inline-constants on a sequence of ones that alone sets the step
; count (5): the body reads 1 instead (s*1 folds to s), and the loop must
; keep 5 steps.
; scans_after: 1
; parts_after: seqs=0
; fires: scan-inline-constants
(program eq_inline_constant_sequence
  (input s0 (f64 3))
  (let S (scan (sequences (ones (f64 5 3))) (outputs_info (sitsot s0))
    (fn (w s) (tanh (add (mul s w) 0.5)))))
  (output S))
