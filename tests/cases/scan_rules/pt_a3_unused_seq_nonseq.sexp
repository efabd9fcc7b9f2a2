; Ports test_io's remove_unused test for a sequence and a non-sequence (A3):
; x_t = x_{t-1}^2 with an unused sequence s (which sets the 4 steps) and an
; unused non-sequence ns; after the rewrite only the state remains.
; scans_after: 1
; parts_after: seqs=0 nonseqs=0 sitsots=1
; fires: scan-tidy-inputs
(program pt_a3_unused_seq_nonseq
  (input s (f64 4))
  (input x0 (f64))
  (input ns (f64))
  (let X (scan
    (sequences s)
    (outputs_info (sitsot x0))
    (non_sequences ns)
    (fn (st x n) (mul x x))))
  (output X))
