; scan-inline-constants on a uniform sequence read at taps -1 0: it sets
; 5 - 1 = 4 steps, which the loop must keep once the sequence is gone.
; scans_after: 1
; parts_after: seqs=0
; fires: scan-inline-constants
(program eq_inline_constant_sequence_taps
  (input s0 (f64 3))
  (let S (scan (sequences ((fill (f64 5 3) 0.25) (taps -1 0))) (outputs_info (sitsot s0))
    (fn (a b s) (tanh (add (mul s a) b)))))
  (output S))
